// Engine against simulator: per-request latency distributions (TTFT, TPOT, ITL, E2E), run-level
// figures, and the per-step duration error of the step-time model on the engine's own plans.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "perf/step_time_model.h"
#include "validate/engine_side.h"
#include "validate/sim_side.h"
#include "validate/stats.h"

namespace tidal::validate {

// Seconds, finished requests only (TPOT: those with more than one output token); ITL: every gap
// between consecutive output tokens.
struct LatencySamples {
  std::vector<double> ttft, tpot, itl, e2e;
};
LatencySamples engine_samples(const EngineSide& side);
LatencySamples sim_samples(SimRun& run);

// One latency metric: both sides' distributions, the simulator's signed and absolute percentage
// error on mean, p50, p90 and p99 (empty where the engine's figure is 0), and the KS distance.
struct MetricComparison {
  std::string name;  // ttft | tpot | itl | e2e
  Distribution engine, sim;
  std::array<std::optional<double>, 4> signed_pct;  // mean, p50, p90, p99
  std::array<std::optional<double>, 4> abs_pct;
  double ks = 0.0;
};
MetricComparison compare_metric(const std::string& name, const std::vector<double>& engine,
                                const std::vector<double>& sim);
std::vector<MetricComparison> compare_latencies(const LatencySamples& engine,
                                                const LatencySamples& sim);

// A run-level figure of both sides.
struct FigureComparison {
  std::string name;  // output_tokens_per_s | request_throughput_rps | makespan_s
  double engine = 0.0, sim = 0.0;
  std::optional<double> signed_pct;
};
std::vector<FigureComparison> compare_figures(const engine::RunMetrics& engine,
                                              const sim::RunMetrics& sim);

// Every engine step against the model's prediction for its plan (sequences' new and context
// tokens, plus swap copies), as the simulator charges a step (sim::Replica::plan_step): with
// speculation enabled in `spec`, a step verifying drafts is stretched by 1 + draft_cost_ratio x
// (most drafts of one sequence), and every sequence with context adds its host drafting
// (draft_seconds_per_seq + draft_seconds_per_context_token x context).
struct StepPrediction {
  int64_t num_seqs = 0;
  int64_t num_tokens = 0;
  double measured_s = 0.0;
  double predicted_s = 0.0;
  double signed_pct = 0.0;
};
std::vector<StepPrediction> predict_steps(const std::vector<engine::StepRecord>& steps,
                                          const perf::StepTimeModel& model,
                                          const sim::SpeculativeSpec& spec);

struct StepErrorSummary {
  int64_t num_steps = 0;
  double median_abs_pct = 0.0, p90_abs_pct = 0.0, median_signed_pct = 0.0;
  double measured_total_s = 0.0, predicted_total_s = 0.0;
};
StepErrorSummary summarize_steps(const std::vector<StepPrediction>& steps);

nlohmann::ordered_json to_json(const Distribution& d);
nlohmann::ordered_json to_json(const MetricComparison& m);
nlohmann::ordered_json to_json(const FigureComparison& f);
nlohmann::ordered_json to_json(const StepErrorSummary& s);

}  // namespace tidal::validate
