#include "validate/calibrate_command.h"

#include <ctime>
#include <map>
#include <ostream>
#include <set>

#include <fmt/format.h>

#include "base/input_error.h"
#include "base/output_files.h"
#include "validate/held_out.h"
#include "validate/measured_repeats.h"
#include "validate/parallel_for.h"

namespace tidal::validate {
namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  char text[16];
  std::strftime(text, sizeof(text), "%Y-%m-%d", std::gmtime(&now));
  return text;
}

}  // namespace

perf::CalibrationFile run_calibrate(const CalibrateCommand& command, std::ostream& log,
                                    std::ostream* progress) {
  base::check_output_writable(command.out);  // before the fits, not after them
  const std::vector<MeasuredRun> runs =
      ends_with(command.measured, ".json")
          ? read_vllm_bench_json(command.measured, command.bench_defaults)
          : read_measured_csv(command.measured);
  std::map<std::string, int64_t> left_out;
  std::vector<PreparedRow> rows;
  TakenRuns taken_runs;  // each run fits once
  for (const MeasuredRun& run : runs) {
    std::string reason;
    if (std::optional<PreparedRow> row = prepare_row(run, command.silicon, &reason)) {
      if (taken_runs.first(run)) {
        rows.push_back(std::move(*row));
      } else {
        ++left_out["the same measured run as an earlier row"];
      }
    } else {
      ++left_out[left_out_key(reason)];
    }
  }
  if (rows.empty()) {
    throw InputError(no_expressible_row_error(command.measured, runs.size(), left_out));
  }
  std::map<std::pair<std::string, std::string>, std::vector<const PreparedRow*>> groups;
  for (const PreparedRow& row : rows) groups[{row.engine, row.gpu}].push_back(&row);
  perf::CalibrationFile file;
  file.base_model =
      command.silicon.step_model + (command.silicon.engine_presets ? " + engine presets" : "");
  file.created = today();
  // Each group's fit and, with --held-out, each of its folds is a task of its own: in parallel,
  // the results and their lines in group order.
  std::vector<const std::vector<const PreparedRow*>*> group_rows;
  for (const auto& [key, group] : groups) group_rows.push_back(&group);
  file.groups.resize(group_rows.size());
  struct FoldTask {
    size_t group;
    ArchitectureFold fold;
  };
  std::vector<FoldTask> fold_tasks;
  if (command.held_out) {
    for (size_t g = 0; g < group_rows.size(); ++g) {
      for (ArchitectureFold& fold : architecture_folds(*group_rows[g], false)) {
        fold_tasks.push_back(FoldTask{g, std::move(fold)});
      }
    }
  }
  std::vector<FoldPredictions> fold_predictions(fold_tasks.size());
  const size_t num_tasks = group_rows.size() + fold_tasks.size();
  const auto describe = [&](size_t task) {
    if (task < group_rows.size()) {
      const PreparedRow& any = *group_rows[task]->front();
      return fmt::format("fit of {} on {} ({} rows)", any.engine, any.gpu,
                         group_rows[task]->size());
    }
    const ArchitectureFold& fold = fold_tasks[task - group_rows.size()].fold;
    std::set<std::string> names;
    for (const PreparedRow* row : fold.test) names.insert(row->model);
    std::string models;
    for (const std::string& name : names) models += (models.empty() ? "" : " and ") + name;
    return fmt::format("fit of {} on {} without {} ({} rows predicted)", fold.test.front()->engine,
                       fold.test.front()->gpu, models, fold.test.size());
  };
  size_t num_done = 0;  // on_done runs one call at a time
  parallel_for(
      num_tasks, command.num_threads,
      [&](size_t task) {
        if (task < group_rows.size()) {
          file.groups[task] = fit_calibration(*group_rows[task], command.fit);
        } else {
          const size_t f = task - group_rows.size();
          fold_predictions[f] = predict_fold(fold_tasks[f].fold, command.fit);
        }
      },
      [&](size_t task, double seconds) {
        if (progress == nullptr) return;
        *progress << fmt::format("calibrate: {}/{} done: {}, {:.1f} s\n", ++num_done, num_tasks,
                                 describe(task), seconds)
                  << std::flush;
      });
  std::vector<char> has_folds(group_rows.size(), 0);  // [num_groups]
  for (size_t g = 0; g < group_rows.size(); ++g) {
    std::vector<FoldPredictions> folds;
    for (size_t f = 0; f < fold_tasks.size(); ++f) {
      if (fold_tasks[f].group == g) folds.push_back(std::move(fold_predictions[f]));
    }
    has_folds[g] = !folds.empty();
    if (has_folds[g]) file.groups[g].held_out = held_out_figures(folds);
  }
  for (size_t g = 0; g < group_rows.size(); ++g) {
    const perf::Calibration& c = file.groups[g];
    log << fmt::format(
        "{} on {}: fitted on {} of {} rows ({} models): step {:.3f} ms + {:.2f} us/seq, front end "
        "{:.2f} ms, prefill host {:.3f} ms/layer, GEMM x{:.3f}, attention x{:.3f}; TTFT MAPE "
        "{:.1f}%, TPOT MAPE {:.1f}% on the fitted rows\n",
        c.engine, c.gpu, c.num_rows, group_rows[g]->size(), c.models.size(),
        c.step_overhead_base_s.value * 1e3, c.step_overhead_per_seq_s.value * 1e6,
        c.frontend_per_request_s.value * 1e3, c.prefill_host_per_layer_s.value * 1e3,
        c.scale(perf::ScaledClass::gemm), c.scale(perf::ScaledClass::attention), c.ttft_mape_pct,
        c.tpot_mape_pct);
    if (!command.held_out) continue;
    if (c.held_out) {
      const perf::HeldOutFigures& h = *c.held_out;
      log << fmt::format(
          "  held out: {} rows of {} architectures, each predicted by a fit on the others: "
          "TTFT MAPE {:.1f}%, TPOT MAPE {:.1f}% (uncalibrated {:.1f}%, {:.1f}%){}\n",
          h.num_rows, h.num_architectures, h.ttft_mape_pct, h.tpot_mape_pct,
          h.uncalibrated_ttft_mape_pct, h.uncalibrated_tpot_mape_pct,
          h.num_rows_unfinished == 0
              ? ""
              : fmt::format("; {} rows left out: no measured request finished in a prediction",
                            h.num_rows_unfinished));
    } else if (has_folds[g]) {
      log << "  held out: nothing (no measured request finished in any held-out prediction)\n";
    } else {
      log << "  held out: nothing (the rows are of one architecture)\n";
    }
  }
  int64_t num_left_out = 0;
  for (const auto& [reason, count] : left_out) num_left_out += count;
  log << fmt::format("{} of {} rows used; left out:\n", rows.size(), runs.size());
  for (const auto& [reason, count] : left_out) log << fmt::format("  {:6d}  {}\n", count, reason);
  if (num_left_out == 0) log << "  none\n";
  perf::save_calibration(file, command.out);
  log << "wrote " << command.out << "\n";
  return file;
}

}  // namespace tidal::validate
