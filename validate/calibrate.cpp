#include "validate/calibrate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "validate/least_squares.h"

namespace tidal::validate {
namespace {

// The fitted parameters in order, with their bounds, finite-difference steps and the start used
// when the rows' pool has no engine preset.
struct Parameter {
  double initial, lower, upper, step;
};
constexpr Parameter kParameters[] = {
    {0.5e-3, 0.0, 0.05, 1e-4},  // step_overhead_base_s
    {5e-6, 0.0, 5e-4, 1e-6},    // step_overhead_per_seq_s
    {5e-3, 0.0, 0.5, 1e-3},     // frontend_per_request_s
    {0.5e-3, 0.0, 0.01, 5e-5},  // prefill_host_per_layer_s (started above 0: below the GPU time
                                // a prefill step's host term has no gradient)
    {1.0, 0.3, 3.0, 0.02},      // gemm scale
    {1.0, 0.3, 3.0, 0.02},      // attention scale
};

constexpr size_t kNumUnscaled = 4;  // the parameters before the scales

// How far each coefficient may move from its prior at the cost of one residual of 1 (a row off
// by a factor e): an overhead by its prior or the floor below, whichever is larger; a scale by
// 10% in log (the tables measure these kernels: a scale corrects them, it does not replace them).
struct PriorWidth {
  double floor;  // overheads: absolute seconds; scales: the width in log
  bool is_scale;
};
constexpr PriorWidth kPriorWidths[] = {
    {0.5e-3, false},  // step_overhead_base_s
    {10e-6, false},   // step_overhead_per_seq_s
    {5e-3, false},    // frontend_per_request_s
    {1e-3, false},    // prefill_host_per_layer_s
    {0.1, true},      // gemm scale
    {0.1, true},      // attention scale
};

// Where the fit starts and what it is pulled toward: the preset's figures of the rows' first pool
// (every row of a group has the same engine and GPU), else kParameters' starts.
std::vector<double> prior_means(const PreparedRow& row) {
  std::vector<double> means;
  for (const Parameter& p : kParameters) means.push_back(p.initial);
  const auto& engine = row.scenario.pools.front().engine;
  if (engine) {
    means[0] = engine->defaults.step_overhead.base_s;
    means[1] = engine->defaults.step_overhead.per_seq_s;
    means[2] = engine->defaults.frontend_per_request_s;
  }
  for (size_t i = 0; i < means.size(); ++i) {
    means[i] = std::clamp(means[i], kParameters[i].lower, kParameters[i].upper);
  }
  return means;
}

double prior_residual(size_t i, double value, double mean) {
  const PriorWidth& w = kPriorWidths[i];
  if (w.is_scale) return std::log(value / mean) / w.floor;
  return (value - mean) / std::max(mean, w.floor);
}

perf::Calibration calibration_of(const std::vector<double>& p, const std::vector<double>& se,
                                 const PreparedRow& any) {
  perf::Calibration c;
  c.engine = any.engine;
  c.gpu = any.gpu;
  const auto at = [&](size_t i) { return perf::FittedValue{p[i], se.empty() ? 0.0 : se[i]}; };
  c.step_overhead_base_s = at(0);
  c.step_overhead_per_seq_s = at(1);
  c.frontend_per_request_s = at(2);
  c.prefill_host_per_layer_s = at(3);
  if (p.size() > kNumUnscaled) {  // the scales were fitted; else they stay 1
    c.scales[static_cast<size_t>(perf::ScaledClass::gemm)] = at(4);
    c.scales[static_cast<size_t>(perf::ScaledClass::attention)] = at(5);
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

// At most max_rows rows, shared as evenly as the models' row counts allow (a model with fewer
// rows than its share gives the rest to the others), each model's share spread over its rows.
std::vector<const PreparedRow*> fit_subset(const std::vector<const PreparedRow*>& rows,
                                           int64_t max_rows) {
  std::map<std::string, std::vector<const PreparedRow*>> by_model;
  for (const PreparedRow* row : rows) by_model[row->model].push_back(row);
  std::vector<const std::vector<const PreparedRow*>*> models;  // smallest first
  for (const auto& [name, model_rows] : by_model) models.push_back(&model_rows);
  std::stable_sort(models.begin(), models.end(),
                   [](const auto* a, const auto* b) { return a->size() < b->size(); });
  std::map<const std::vector<const PreparedRow*>*, int64_t> quota;
  int64_t remaining = max_rows;
  for (size_t m = 0; m < models.size(); ++m) {
    const auto models_left = static_cast<int64_t>(models.size() - m);
    quota[models[m]] = std::min(static_cast<int64_t>(models[m]->size()), remaining / models_left);
    remaining -= quota[models[m]];
  }
  std::vector<const PreparedRow*> subset;
  for (const auto& [name, model_rows] : by_model) {
    for (const PreparedRow* row : spread_subset(model_rows, quota[&model_rows])) {
      subset.push_back(row);
    }
  }
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
  const std::vector<const PreparedRow*> fit_rows = fit_subset(rows, options.max_fit_rows);
  const std::vector<double> means = prior_means(*fit_rows.front());
  LeastSquaresProblem problem;
  const size_t num_fitted = options.fit_scales ? std::size(kParameters) : kNumUnscaled;
  for (size_t i = 0; i < num_fitted; ++i) {
    const Parameter& p = kParameters[i];
    problem.initial.push_back(means[i]);
    problem.lower.push_back(p.lower);
    problem.upper.push_back(p.upper);
    problem.step.push_back(p.step);
  }
  problem.residuals = [&](const std::vector<double>& p) {
    const perf::Calibration c = calibration_of(p, {}, *fit_rows.front());
    std::vector<double> r;  // [2 * rows (+ params)] relative TTFT and TPOT errors (+ priors)
    for (const PreparedRow* row : fit_rows) {
      const RowPrediction predicted = predict_row(*row, &c);
      // Log ratios: relative errors either way, and a row off by 100x cannot swamp the fit.
      r.push_back(std::log(std::max(predicted.ttft_ms, 1e-6) / row->run.ttft_ms));
      r.push_back(std::log(std::max(predicted.tpot_ms, 1e-6) / row->run.tpot_ms));
    }
    for (size_t i = 0; options.use_prior && i < p.size(); ++i) {
      r.push_back(prior_residual(i, p[i], means[i]));
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
  std::vector<double> ttft_ratio;  // [rows] predicted / measured
  std::vector<double> tpot_ratio;
  for (size_t i = 0; i < rows.size(); ++i) {
    ttft_ratio.push_back(predictions[i].ttft_ms / rows[i]->run.ttft_ms);
    tpot_ratio.push_back(predictions[i].tpot_ms / rows[i]->run.tpot_ms);
  }
  const auto ape = [](const std::vector<double>& ratios) {
    std::vector<double> out;
    for (const double r : ratios) out.push_back(100.0 * std::abs(r - 1.0));
    return out;
  };
  const auto mean = [](const std::vector<double>& v) {
    double sum = 0.0;
    for (const double x : v) sum += x;
    return v.empty() ? 0.0 : sum / static_cast<double>(v.size());
  };
  const auto share_under = [](const std::vector<double>& ratios) {
    const auto num_under =
        std::count_if(ratios.begin(), ratios.end(), [](double r) { return r < 1.0; });
    return ratios.empty() ? 0.0
                          : static_cast<double>(num_under) / static_cast<double>(ratios.size());
  };
  const std::vector<double> ttft = ape(ttft_ratio);
  const std::vector<double> tpot = ape(tpot_ratio);
  return {mean(ttft),
          mean(tpot),
          median(ttft),
          median(tpot),
          median(ttft_ratio),
          median(tpot_ratio),
          share_under(ttft_ratio),
          share_under(tpot_ratio)};
}

}  // namespace tidal::validate
