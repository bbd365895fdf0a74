// Trace statistics for `tidal trace stats` and reports. Percentiles are exact nearest-rank:
// the p-th percentile of n sorted values is value[ceil(p/100 * n) - 1] (docs/traces.md).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "traces/request.h"

namespace tidal::traces {

struct LengthStats {
  double mean = 0.0;
  int64_t p50 = 0;
  int64_t p90 = 0;
  int64_t p99 = 0;
  int64_t max = 0;
};

// Arrival counts in consecutive windows [t0 + k*w, t0 + (k+1)*w) covering the trace, as rates.
struct WindowRateStats {
  double window_s = 0.0;
  int64_t num_windows = 0;
  double mean = 0.0;  // requests / (num_windows * window_s)
  double p50 = 0.0;
  double p90 = 0.0;
  double p99 = 0.0;
  double max = 0.0;
  double peak_to_mean = 0.0;  // max / mean
};

// Prompt blocks whose whole leading prefix (this block and all before it) appeared in an
// earlier request, with an unbounded cache filled in arrival (file) order.
struct PrefixReuseStats {
  int32_t block_tokens = 0;  // block size of the first request carrying blocks
  int64_t num_blocks = 0;
  int64_t num_reused_blocks = 0;
  double ratio = 0.0;  // num_reused_blocks / num_blocks
};

struct DagStats {
  int64_t num_dag_requests = 0;             // requests with deps or depended upon
  int64_t num_dags = 0;                     // connected groups of such requests
  int64_t critical_path_requests = 0;       // most requests on one dependency chain
  int64_t critical_path_output_tokens = 0;  // most output tokens summed along one chain
};

struct TraceStats {
  int64_t num_requests = 0;
  int64_t num_failed = 0;
  double duration_s = 0.0;                    // last arrival - first arrival
  double mean_rate = 0.0;                     // num_requests / duration_s (0 when duration is 0)
  std::vector<WindowRateStats> window_rates;  // [3] windows of 1 s, 10 s, 60 s
  LengthStats prompt_tokens;
  LengthStats output_tokens;
  std::map<std::string, int64_t> requests_per_tenant;     // "" = untagged
  std::map<std::string, int64_t> requests_per_slo_class;  // "" = untagged
  int64_t num_sessions = 0;                               // distinct non-empty session_id
  int64_t num_session_requests = 0;                       // requests with a session_id
  std::optional<PrefixReuseStats> prefix_reuse;           // when some request carries prefix_blocks
  std::optional<DagStats> dag;                            // when some request has deps
};

// InputError when deps name an unknown id or form a cycle.
TraceStats compute_stats(const std::vector<Request>& requests);
nlohmann::json stats_to_json(const TraceStats& stats);
std::string format_stats(const TraceStats& stats);

// Nearest-rank percentile of ascending `sorted` (non-empty), p in (0, 100].
template <typename T>
T nearest_rank(const std::vector<T>& sorted, double p) {
  const auto n = static_cast<double>(sorted.size());
  auto rank = static_cast<size_t>(std::ceil(p * n / 100.0));
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

}  // namespace tidal::traces
