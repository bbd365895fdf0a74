// The per-interval timeline of a run (timeline.csv). Counters accumulate over each interval;
// state columns (queue depth, running, replicas by state, KV use) are sampled at its end, and
// the fleet's queue depth, running requests, KV use and router queue are also followed through
// the interval (its maximum and time-weighted mean): a replica's share of them is observed each
// time it plans a step or takes a request, the router queue each time it changes. MFU and MBU
// cover the steps that start in the interval. Dollars come from the billing ledger after the
// run (the simulator fills them in).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/cluster.h"
#include "sim/replica_state.h"

namespace tidal::sim {

struct TimelineRow {
  int64_t start_ns = 0;
  int64_t end_ns = 0;             // start + interval, or the end of the run for the last row
  int64_t num_arrivals = 0;       // requests that reached the router
  int64_t num_finished = 0;       // requests that produced their last token
  int64_t num_rejected = 0;       // requests refused
  int64_t num_output_tokens = 0;  // output tokens produced
  int64_t queue_depth = 0;        // at end: waiting + swapped-out requests over all replicas
  int64_t num_running = 0;        // at end: running requests over all replicas
  std::array<int32_t, kNumReplicaStates> num_replicas_by_state{};  // at end
  double kv_usage = 0.0;     // at end: used / total GPU KV blocks over all replicas
  double utilization = 0.0;  // busy replica-time / (replicas x interval length)
  double dollars = 0.0;      // billed over the interval (the ledger's interval cost)
  double cumulative_dollars = 0.0;
  int64_t num_queued_at_router = 0;  // at end: requests held at the router
  int64_t micro_dollars = 0;         // dollars, exact (BillingLedger::interval_costs)
  int64_t cumulative_micro_dollars = 0;
  // Through the interval (the values at its start and end included): the largest value and
  // the time-weighted mean of the fleet-wide figure sampled at the end above.
  int64_t max_queue_depth = 0;
  double mean_queue_depth = 0.0;
  int64_t max_running = 0;
  double mean_running = 0.0;
  double max_kv_usage = 0.0;
  double mean_kv_usage = 0.0;
  int64_t max_queued_at_router = 0;
  double mean_queued_at_router = 0.0;
  // Steps starting in the interval: roofline FLOPs (bytes) over all GPUs / (peak FLOP/s
  // (bytes/s) x GPU-seconds of those steps). Empty when no counted step started in it.
  std::optional<double> mfu, mbu;
  double kv_transfer_bytes = 0.0;  // KV bytes whose disaggregated transfer landed in it
  int64_t max_kv_transfers = 0;    // disaggregated KV transfers moving bytes at once
  double mean_kv_transfers = 0.0;
  // Egress billed in it (sim/egress_meter.h): a request's bytes when it was sent, an answer's
  // as its chunks streamed, KV as its transfer landed. Not in `dollars`.
  double egress_dollars = 0.0;
};

// Sets each row's dollars from the billing ledger's cost of its interval (exact micro-dollars;
// rows past `costs` cost nothing).
void set_interval_dollars(const std::vector<int64_t>& micro_dollars_by_interval,
                          std::vector<TimelineRow>& rows);

class TimelineRecorder {
 public:
  TimelineRecorder(int64_t interval_ns, const Cluster& cluster);

  // Closes every interval ending at or before `now_ns`, sampling the cluster as it is now
  // (before the events at now_ns are applied). Call before handling each event.
  void advance_to(int64_t now_ns) {
    if (now_ns >= open_end_ns_) close_intervals_until(now_ns);
    now_ns_ = now_ns;
  }
  void add_arrival() { ++open_.num_arrivals; }
  void add_finished() { ++open_.num_finished; }
  void add_rejected() { ++open_.num_rejected; }
  void add_output_tokens(int64_t n) { open_.num_output_tokens += n; }
  void add_kv_transfer_bytes(double bytes) { open_.kv_transfer_bytes += bytes; }
  void add_egress_dollars(double dollars) { open_.egress_dollars += dollars; }
  // Requests held at the router now.
  void set_router_queue(int64_t n);
  // KV transfers moving bytes now.
  void set_kv_transfers(int64_t n);
  // The replica's queue, running requests and KV blocks as they are now (after it planned a
  // step or took a request); with `step_ns` > 0 it planned a step that long, whose work counts
  // towards the interval's MFU and MBU.
  void observe(const Replica& replica, int64_t step_ns = 0);
  int64_t interval_ns() const { return interval_ns_; }
  // A replica is busy over [start_ns, end_ns) (a step); start_ns is in the open interval.
  void add_busy(int64_t start_ns, int64_t end_ns);

  // The intervals closed so far, in time order.
  const std::vector<TimelineRow>& closed_rows() const { return rows_; }
  int64_t now_ns() const { return now_ns_; }  // the event being handled

  // Closes the remaining intervals; the last ends at `end_ns`. Returns every row.
  std::vector<TimelineRow> finish(int64_t end_ns);

 private:
  void close_intervals_until(int64_t now_ns);
  void close_open(int64_t end_ns);
  // The fleet-wide figures followed through the interval.
  struct Gauges {
    int64_t queue_depth = 0;
    int64_t running = 0;
    int64_t used_blocks = 0;
    int64_t total_blocks = 0;
    int64_t queued_at_router = 0;
    int64_t kv_transfers = 0;
    double kv_usage() const;
  };
  struct GaugeSums {              // over the open interval
    double queue_depth_ns = 0.0;  // integral over time, request-ns
    double running_ns = 0.0;
    double kv_usage_ns = 0.0;
    double queued_at_router_ns = 0.0;
    double kv_transfers_ns = 0.0;
    int64_t max_queue_depth = 0;
    int64_t max_running = 0;
    double max_kv_usage = 0.0;
    int64_t max_queued_at_router = 0;
    int64_t max_kv_transfers = 0;
  };
  // Adds the gauges' values since the last change to the integrals, up to now_ns_.
  void integrate_to(int64_t t_ns);
  void note_maxima();
  // Sets the gauges to the cluster as it is now (the end sample) and restarts the sums.
  void restart_gauges(const Gauges& end_sample, int64_t start_ns);
  struct ReplicaGauge {  // [num_replicas] what observe() last saw of each replica
    int64_t queue_depth = 0;
    int64_t running = 0;
    int64_t used_blocks = 0;
    int64_t total_blocks = 0;
  };

  const Cluster& cluster_;
  int64_t interval_ns_;
  int64_t open_end_ns_;
  TimelineRow open_;
  int64_t open_busy_ns_ = 0;  // busy replica-ns inside the open interval
  // Busy replica-ns booked for the intervals after the open one (steps that cross its end):
  // [intervals ahead], index 0 = the next interval.
  std::vector<int64_t> future_busy_ns_;
  std::vector<TimelineRow> rows_;
  int64_t now_ns_ = 0;  // the event being handled
  Gauges gauges_;
  GaugeSums sums_;
  int64_t gauges_since_ns_ = 0;               // when the integrals last caught up
  std::vector<ReplicaGauge> replica_gauges_;  // [num_replicas] grown as replicas appear
  // Work of the steps started in the open interval, over all their GPUs.
  double step_flops_ = 0.0;
  double step_bytes_ = 0.0;
  double peak_flops_s_ = 0.0;  // sum over those steps of peak FLOP/s x GPUs x seconds
  double peak_bytes_s_ = 0.0;
};

}  // namespace tidal::sim
