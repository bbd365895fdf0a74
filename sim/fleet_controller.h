// The fleet side of the event loop: replica lifecycles (cold starts, drains, spot
// interruptions), one autoscaler per pool evaluated every evaluation_interval_s, and the
// billing ledger every state change is reported to. The simulator owns requests; this class
// owns replica states and tells the simulator, through FleetEvents, what it must do about
// requests (re-queue, dispatch held ones).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/cluster.h"
#include "sim/event_queue.h"
#include "sim/fleet/autoscaler.h"
#include "sim/fleet/billing.h"
#include "sim/fleet/spot.h"
#include "sim/scenario.h"

namespace tidal::sim {

// Fleet figures a run reports (summary.json "fleet" and "costs").
struct FleetReport {
  fleet::BillingReport billing;
  std::vector<fleet::MicroDollars> interval_costs;  // [timeline rows] from the ledger
  std::vector<int32_t> peak_replicas;               // [num_pools] most provisioned at once
  std::vector<int64_t> num_scale_ups;               // [num_pools] replicas requested
  std::vector<int64_t> num_scale_downs;             // [num_pools] replicas drained or cancelled
  std::vector<int64_t> num_spot_interruptions;      // [num_pools] notices received
  std::vector<double> cold_start_s;                 // [num_pools] request -> warm of one replica
};

class FleetController {
 public:
  FleetController(const Scenario& scenario, Cluster& cluster, EventQueue& queue);

  // Time 0: bills the initial replicas and schedules every pool's first evaluation.
  void start();
  // Moves a replica to `state` at `now_ns`: the ledger, leases, spot draws, load view.
  void set_state(int32_t replica, ReplicaState state, int64_t now_ns);

  // An autoscaler evaluation of `pool`. `num_queued_at_router` counts requests held at the
  // router; the next evaluation is scheduled unless `keep_going` is false.
  void on_autoscale(int32_t pool, int64_t now_ns, int64_t num_queued_at_router, bool keep_going);
  // A cold-start stage ended: the replica moves to `next` if it is still starting. Returns
  // true when it became warm.
  bool on_lifecycle(int32_t replica, ReplicaState next, int64_t now_ns);
  // The spot notice (counted as an interruption): a warm replica drains, a starting one is
  // cancelled.
  void on_spot_notice(int32_t replica, int64_t now_ns);
  // Stops a draining replica once nothing is routed to it and no step is in flight.
  void stop_if_drained(int32_t replica, int64_t now_ns);
  // A request served by `pool` produced its first token with this TTFT (latency_slo input).
  void add_ttft(int32_t pool, double ttft_s) {
    new_ttft_s_[static_cast<size_t>(pool)].push_back(ttft_s);
  }

  // Closes the ledger at `end_ns` (every replica stops); interval costs per `interval_ns`.
  FleetReport finish(int64_t end_ns, int64_t interval_ns);

 private:
  void scale_up(int32_t pool, int32_t count, int64_t now_ns);
  void scale_down(int32_t pool, int32_t count, int64_t now_ns);
  void track_peak(int32_t pool);

  const Scenario& scenario_;
  Cluster& cluster_;
  EventQueue& queue_;
  fleet::BillingLedger ledger_;
  std::vector<std::unique_ptr<fleet::Autoscaler>> autoscalers_;  // [num_pools]
  std::vector<fleet::SpotInterruptionProcess> spot_;             // [num_pools]
  std::vector<int32_t> num_reserved_in_use_;                     // [num_pools]
  std::vector<std::vector<double>> new_ttft_s_;                  // [num_pools][since last call]
  FleetReport report_;
};

}  // namespace tidal::sim
