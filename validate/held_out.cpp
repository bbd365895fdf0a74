#include "validate/held_out.h"

#include <map>
#include <string>

namespace tidal::validate {

std::vector<ArchitectureFold> architecture_folds(const std::vector<const PreparedRow*>& group,
                                                 bool train_on_aggregated_only) {
  std::map<std::string, std::vector<const PreparedRow*>> by_architecture;
  for (const PreparedRow* row : group) by_architecture[row->architecture].push_back(row);
  std::vector<ArchitectureFold> folds;
  for (const auto& [architecture, rows] : by_architecture) {
    ArchitectureFold fold;
    fold.test = rows;
    for (const PreparedRow* row : group) {
      if (row->architecture == architecture) continue;
      if (train_on_aggregated_only && row->run.mode != "agg") continue;
      fold.train.push_back(row);
    }
    if (!fold.train.empty()) folds.push_back(std::move(fold));
  }
  return folds;
}

std::optional<ArchitectureFold> serving_mode_fold(const std::vector<const PreparedRow*>& group) {
  ArchitectureFold fold;
  for (const PreparedRow* row : group)
    (row->run.mode == "agg" ? fold.train : fold.test).push_back(row);
  if (fold.train.empty() || fold.test.empty()) return std::nullopt;
  return fold;
}

FoldPredictions predict_fold(const ArchitectureFold& fold, const CalibrateOptions& options) {
  const perf::Calibration c = fit_calibration(fold.train, options);
  FoldPredictions out;
  out.rows = fold.test;
  for (const PreparedRow* row : fold.test) {
    out.calibrated.push_back(predict_row(*row, &c));
    out.uncalibrated.push_back(predict_row(*row, nullptr));
  }
  return out;
}

std::optional<perf::HeldOutFigures> held_out_figures(const std::vector<FoldPredictions>& folds) {
  std::vector<const PreparedRow*> rows;
  std::vector<RowPrediction> calibrated;    // [rows.size()]
  std::vector<RowPrediction> uncalibrated;  // [rows.size()]
  int64_t num_unfinished = 0;
  for (const FoldPredictions& fold : folds) {
    for (size_t i = 0; i < fold.rows.size(); ++i) {
      if (fold.calibrated[i].num_measured == 0 || fold.uncalibrated[i].num_measured == 0) {
        ++num_unfinished;
        continue;
      }
      rows.push_back(fold.rows[i]);
      calibrated.push_back(fold.calibrated[i]);
      uncalibrated.push_back(fold.uncalibrated[i]);
    }
  }
  if (rows.empty()) return std::nullopt;
  const ErrorFigures with = error_figures(rows, calibrated);
  const ErrorFigures without = error_figures(rows, uncalibrated);
  perf::HeldOutFigures figures;
  figures.num_rows = static_cast<int64_t>(rows.size());
  figures.num_architectures = static_cast<int64_t>(folds.size());
  figures.num_rows_unfinished = num_unfinished;
  figures.ttft_mape_pct = with.ttft_mape_pct;
  figures.tpot_mape_pct = with.tpot_mape_pct;
  figures.uncalibrated_ttft_mape_pct = without.ttft_mape_pct;
  figures.uncalibrated_tpot_mape_pct = without.tpot_mape_pct;
  return figures;
}

}  // namespace tidal::validate
