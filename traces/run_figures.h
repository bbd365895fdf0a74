// The request figures every run reports, engine or simulator (DESIGN.md "Metrics",
// docs/run-output.md): counts, token totals, latency summaries and throughput, and the
// summary.json "metrics" keys they print as. Each run's own metrics add their figures after
// these (SLOs, classes, utilization, cost).
//
// Percentiles are nearest-rank: for n samples sorted ascending x[1] <= ... <= x[n], the p-th is
// x[k] with k = ceil(p / 100 * n), k >= 1; always one of the samples, no interpolation.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace tidal::traces {

struct LatencySummary {
  int64_t count = 0;
  double mean = 0.0;  // every field is 0 when count == 0 (writers print them as null)
  double p50 = 0.0;
  double p90 = 0.0;
  double p99 = 0.0;
  double max = 0.0;
};

// k above (1-based) of the p-th percentile, p in (0, 100], among n >= 1 samples.
int64_t nearest_rank_position(double p, int64_t n);

// {"count", "mean_s", "p50_s", "p90_s", "p99_s", "max_s"}; the figures are null when count is 0.
nlohmann::ordered_json latency_summary_json(const LatencySummary& summary);

struct RequestFigures {
  double duration_s = 0.0;  // from 0 to the run's end
  int64_t num_requests = 0;
  int64_t num_finished = 0;
  int64_t num_rejected = 0;
  int64_t num_input_tokens = 0;   // prompt tokens of finished requests
  int64_t num_output_tokens = 0;  // output tokens of finished requests
  int64_t num_preemptions = 0;
  int64_t num_prefix_hit_tokens = 0;
  LatencySummary ttft, tpot, itl, e2e, queue_delay;  // finished requests
  double request_throughput_rps = 0.0;               // finished / duration
  double input_tokens_per_s = 0.0;
  double output_tokens_per_s = 0.0;
  std::vector<std::pair<std::string, int64_t>> rejections;  // reason -> count, sorted by reason
};

// The figures under summary.json's "metrics" keys, in the documented order: duration_s,
// num_requests, num_finished, num_rejected, rejections, token counts, throughput, then ttft,
// tpot, itl, e2e and queue_delay. The caller appends its own keys after them.
nlohmann::ordered_json request_figures_json(const RequestFigures& figures);

}  // namespace tidal::traces
