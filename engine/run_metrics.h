// What an engine run records per request and how its metrics are derived. The definitions are
// the simulator's (DESIGN.md "Metrics", docs/run-output.md), so reports read engine and
// simulator runs alike: TTFT = first token - arrival, TPOT = (finish - first token) /
// (output tokens - 1), E2E = finish - arrival, queue delay = first scheduled - arrival, ITL =
// every gap between consecutive output tokens (tokens of one step come out together: the first
// closes the gap, the others add gaps of 0). Percentiles are nearest-rank (traces/run_figures.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine.h"
#include "traces/request.h"
#include "traces/run_figures.h"

namespace tidal::engine {

enum class RequestStatus : uint8_t { pending, finished, rejected };
const char* request_status_name(RequestStatus status);

struct RequestRecord {
  // Times in run nanoseconds (0 = replay start); -1 until the event happens.
  int64_t arrival_ns = 0;  // scaled trace arrival (after its last dependency finished)
  int64_t first_scheduled_ns = -1;
  int64_t first_token_ns = -1;
  int64_t last_token_ns = -1;
  int64_t finish_ns = -1;
  int64_t rejected_ns = -1;  // when it was refused (rejected only)
  int64_t num_output_tokens_done = 0;
  int64_t num_prefix_hit_tokens = 0;
  int64_t max_itl_ns = 0;
  int32_t replica = -1;  // 0 once handed to the engine; -1 when refused before (duplicate id,
                         // failed dependency)
  int32_t num_preemptions = 0;
  RequestStatus status = RequestStatus::pending;
  std::string reason;  // why it was rejected
};

struct RequestLatency {
  std::optional<double> ttft_s, tpot_s, e2e_s, queue_delay_s;
};
RequestLatency request_latency(const RequestRecord& record);

using traces::LatencySummary;
// The summary of `samples` (sorted here; the mean is summed in sorted order).
LatencySummary summarize(std::vector<double> samples);

// Engine state after a step, for the timeline.
struct StateSample {
  int64_t time_ns = 0;
  int64_t num_waiting = 0;  // waiting + swapped out
  int64_t num_running = 0;
  double kv_usage = 0.0;
};

// One timeline.csv row (the simulator's columns; one replica, always warm, no dollars).
struct TimelineRow {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t num_arrivals = 0;
  int64_t num_finished = 0;
  int64_t num_rejected = 0;
  int64_t num_output_tokens = 0;
  int64_t queue_depth = 0;   // at the last step ending in or before the interval's end
  int64_t num_running = 0;   // same
  double kv_usage = 0.0;     // same
  double utilization = 0.0;  // share of the interval spent executing steps
};

struct RunMetrics : traces::RequestFigures {
  double utilization = 0.0;  // busy share of the run
};

RunMetrics compute_metrics(const std::vector<RequestRecord>& records,
                           const std::vector<Request>& requests, std::vector<double> itl_s,
                           int64_t busy_ns, int64_t end_ns);

std::vector<TimelineRow> compute_timeline(const std::vector<RequestRecord>& records,
                                          const std::vector<StepRecord>& steps,
                                          const std::vector<StateSample>& states,
                                          int64_t interval_ns, int64_t end_ns);

}  // namespace tidal::engine
