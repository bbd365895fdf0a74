#include "validate/calibrate.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "validate/least_squares.h"

namespace tidal::validate {
namespace {

// The fitted parameters in order, with their bounds, finite-difference steps and start.
struct Parameter {
  double initial, lower, upper, step;
};
constexpr Parameter kParameters[] = {
    {0.5e-3, 0.0, 0.05, 1e-4},  // step_overhead_base_s
    {5e-6, 0.0, 5e-4, 1e-6},    // step_overhead_per_seq_s
    {5e-3, 0.0, 0.5, 1e-3},     // frontend_per_request_s
    {1.0, 0.3, 3.0, 0.02},      // gemm scale
    {1.0, 0.3, 3.0, 0.02},      // attention scale
};

perf::Calibration calibration_of(const std::vector<double>& p, const std::vector<double>& se,
                                 const PreparedRow& any) {
  perf::Calibration c;
  c.engine = any.engine;
  c.gpu = any.gpu;
  const auto at = [&](size_t i) { return perf::FittedValue{p[i], se.empty() ? 0.0 : se[i]}; };
  c.step_overhead_base_s = at(0);
  c.step_overhead_per_seq_s = at(1);
  c.frontend_per_request_s = at(2);
  if (p.size() > 3) {  // the scales were fitted; else they stay 1
    c.scales[static_cast<size_t>(perf::ScaledClass::gemm)] = at(3);
    c.scales[static_cast<size_t>(perf::ScaledClass::attention)] = at(4);
  }
  return c;
}

std::vector<const PreparedRow*> spread_subset(const std::vector<const PreparedRow*>& rows,
                                              int64_t max_rows) {
  const auto n = static_cast<int64_t>(rows.size());
  if (n <= max_rows) return rows;
  std::vector<const PreparedRow*> subset;
  for (int64_t i = 0; i < max_rows; ++i)
    subset.push_back(rows[static_cast<size_t>(i * n / max_rows)]);
  return subset;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2.0;
}

}  // namespace

perf::Calibration fit_calibration(const std::vector<const PreparedRow*>& rows,
                                  const CalibrateOptions& options) {
  if (rows.empty()) throw std::invalid_argument("fit_calibration: no rows");
  const std::vector<const PreparedRow*> fit_rows = spread_subset(rows, options.max_fit_rows);
  LeastSquaresProblem problem;
  const size_t num_fitted = options.fit_scales ? std::size(kParameters) : 3;
  for (size_t i = 0; i < num_fitted; ++i) {
    const Parameter& p = kParameters[i];
    problem.initial.push_back(p.initial);
    problem.lower.push_back(p.lower);
    problem.upper.push_back(p.upper);
    problem.step.push_back(p.step);
  }
  problem.residuals = [&](const std::vector<double>& p) {
    const perf::Calibration c = calibration_of(p, {}, *fit_rows.front());
    std::vector<double> r;  // [2 * rows] relative TTFT and TPOT errors
    for (const PreparedRow* row : fit_rows) {
      const RowPrediction predicted = predict_row(*row, &c);
      // Log ratios: relative errors either way, and a row off by 100x cannot swamp the fit.
      r.push_back(std::log(std::max(predicted.ttft_ms, 1e-6) / row->run.ttft_ms));
      r.push_back(std::log(std::max(predicted.tpot_ms, 1e-6) / row->run.tpot_ms));
    }
    return r;
  };
  const LeastSquaresResult fit = fit_least_squares(problem, options.max_iterations);
  perf::Calibration c = calibration_of(fit.params, fit.standard_error, *rows.front());
  std::set<std::string> models;
  for (const PreparedRow* row : fit_rows) models.insert(row->model);
  c.models.assign(models.begin(), models.end());
  c.num_rows = static_cast<int64_t>(fit_rows.size());
  std::vector<RowPrediction> predictions;
  for (const PreparedRow* row : fit_rows) predictions.push_back(predict_row(*row, &c));
  const ErrorFigures errors = error_figures(fit_rows, predictions);
  c.ttft_mape_pct = errors.ttft_mape_pct;
  c.tpot_mape_pct = errors.tpot_mape_pct;
  return c;
}

ErrorFigures error_figures(const std::vector<const PreparedRow*>& rows,
                           const std::vector<RowPrediction>& predictions) {
  std::vector<double> ttft;
  std::vector<double> tpot;
  for (size_t i = 0; i < rows.size(); ++i) {
    ttft.push_back(100.0 * std::abs(predictions[i].ttft_ms / rows[i]->run.ttft_ms - 1.0));
    tpot.push_back(100.0 * std::abs(predictions[i].tpot_ms / rows[i]->run.tpot_ms - 1.0));
  }
  const auto mean = [](const std::vector<double>& v) {
    double sum = 0.0;
    for (const double x : v) sum += x;
    return v.empty() ? 0.0 : sum / static_cast<double>(v.size());
  };
  return {mean(ttft), mean(tpot), median(ttft), median(tpot)};
}

}  // namespace tidal::validate
