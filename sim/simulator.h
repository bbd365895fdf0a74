// The discrete-event simulation of one scenario: arrivals are routed to replicas, each replica
// steps its scheduler with step times from its pool's model, and every request's timeline is
// recorded. The result is a pure function of (scenario, request table).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/egress_meter.h"
#include "sim/fleet/kv_transfers.h"
#include "sim/fleet_controller.h"
#include "sim/lora_cache.h"
#include "sim/model_assignment.h"
#include "sim/request_record.h"
#include "sim/sample_set.h"
#include "sim/scenario.h"
#include "sim/timeline.h"
#include "sim/workload_loader.h"

namespace tidal::sim {

// One batch step of one replica, for trace.json.
struct StepSlice {
  int32_t replica = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int32_t num_seqs = 0;
  int64_t num_tokens = 0;
};

struct ReplicaSummary {
  int32_t pool = 0;
  int64_t busy_ns = 0;
  int64_t num_steps = 0;
  int64_t num_batched_tokens = 0;
  int64_t num_used_blocks_at_end = 0;  // 0 when every block went back to the pool
  int64_t num_gpu_blocks = 0;
  sched::SchedulerStats scheduler;
  kv::BlockManagerStats block_manager;
  int64_t warm_ns = 0;            // time spent warm or draining
  int64_t powered_ns = 0;         // time in states that draw power (fleet::draws_power)
  int64_t num_routed_tokens = 0;  // prompt + output tokens of the requests routed to it
  StepLoad load;                  // its steps' batches, KV use and work (sim/replica.h)
  kv::TierStoreStats kv_tiers;    // what its KV offload tiers moved (empty without tiers)
  LoraStats lora;                 // its LoRA adapters' loads and hits (zero without lora)
};

struct RunResult {
  RequestTable table;
  std::vector<RequestRecord> records;  // [num_requests], aligned with table.requests
  // [num_requests] aligned with records when a pool is disaggregated, else empty.
  std::vector<HandoffRecord> handoffs;
  SampleSet itl;  // every gap between consecutive output tokens, warm-up left out (sim/warmup.h)
  std::vector<TimelineRow> timeline;
  std::vector<StepSlice> slices;  // the first output.trace_max_slices steps by start time
  int64_t num_slices_dropped = 0;
  std::vector<ReplicaSummary> replicas;  // [num_replicas]
  int64_t end_ns = 0;                    // the last event
  int64_t num_events = 0;                // events processed
  int64_t num_steps = 0;
  FleetReport fleet;                              // billing, peaks, scaling and interruption counts
  std::vector<fleet::KvLinkUsage> kv_link_usage;  // [num kv_transfer links]
  ModelAssignment models;                         // which model served each request
  std::optional<EgressReport> egress;  // when the scenario prices egress (sim/egress_meter.h)
  // The progress sink asked to stop (ProgressSink::stop_requested): events after end_ns were
  // not simulated and unfinished requests stay pending. Not a complete run: write no run
  // folder and compute no metrics from it.
  bool stopped_early = false;
};

// What a progress report hands over: how far the run is, and what it produced since the
// previous report. The spans point into the simulator and are valid during the call only.
struct ProgressReport {
  double fraction_done = 0.0;  // requests finished or rejected over all requests, in [0, 1]
  // Timeline intervals closed since the previous report, in time order. Their dollar columns
  // are 0: the billing ledger prices the intervals after the run (RunResult::timeline has
  // them). Concatenated over all reports they are RunResult::timeline in every other column.
  std::span<const TimelineRow> new_rows;
  // Requests finished or rejected since the previous report, in the order they ended (indices
  // into `table` and `records`); their records no longer change.
  std::span<const int64_t> newly_done;
  const RequestTable* table = nullptr;      // the run's requests (token caps applied)
  std::span<const RequestRecord> records;   // [num_requests] as of now
  std::span<const HandoffRecord> handoffs;  // RunResult::handoffs as of now
  bool last = false;                        // the run's final report (after its last event)
  const Cluster* cluster = nullptr;         // the replicas as of now (e.g. a replica's pool)
  int64_t now_ns = 0;                       // the simulated time of the report
  int64_t num_events = 0;                   // events processed so far
};

// Told how far a run is, now and then (every few thousand events, and once at the end).
class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  virtual void update(const ProgressReport& report) = 0;
  // Asked after each report but the last: true ends the run there (RunResult::stopped_early);
  // the final report still follows, with the rows closed up to the stop.
  virtual bool stop_requested() const { return false; }
};

// What a run collects beyond what every caller reads.
struct RunOptions {
  // Every gap between consecutive output tokens (RunResult::itl): one sample per output token.
  // A caller that reads no ITL figure (a plan search whose SLO bounds none) leaves them out;
  // RunResult::itl is then empty, and so is RunMetrics::itl. RequestRecord::max_itl_ns stays.
  bool itl_samples = true;
  ProgressSink* progress = nullptr;
};

RunResult simulate(const Scenario& scenario, RequestTable table, const RunOptions& options);
RunResult simulate(const Scenario& scenario, RequestTable table, ProgressSink* progress = nullptr);

// load_workloads + simulate.
RunResult run_scenario(const Scenario& scenario, ProgressSink* progress = nullptr);

}  // namespace tidal::sim
