// validation.json and the printed table, from the comparisons (docs/validation.md lists every
// field). The `metrics` rows follow reports/' fidelity section (predicted = simulator,
// measured = engine, error as a fraction, tolerance, pass).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "validate/compare.h"

namespace tidal::validate {

// Targets of docs/validation.md, in percent.
inline constexpr double kStepMedianTargetPct = 3.0;
inline constexpr double kStepP90TargetPct = 8.0;
inline constexpr double kMeanTargetPct = 5.0;
inline constexpr double kTailTargetPct = 10.0;

struct Comparison {
  std::vector<MetricComparison> latency;  // ttft, tpot, itl, e2e
  std::vector<FigureComparison> figures;  // throughputs, makespan
};

nlohmann::ordered_json comparison_json(const Comparison& comparison);
// The reports/ rows: "<METRIC> <stat>" for ttft/tpot/itl/e2e x mean/p50/p90/p99, output
// throughput and makespan.
nlohmann::ordered_json metric_rows(const Comparison& comparison);
// Which targets hold: step_median, step_p90, request_means (TTFT, TPOT, E2E), request_p99.
nlohmann::ordered_json targets_json(const Comparison& comparison, const StepErrorSummary& steps);

// The printed table: one row per latency metric (engine / sim mean, p50, p90, p99 with signed %
// error, KS), then throughput, makespan, step error and, when given, the engine's own spread.
std::string format_table(const std::string& title, const Comparison& comparison,
                         const StepErrorSummary& steps, const std::optional<Comparison>& noise);

}  // namespace tidal::validate
