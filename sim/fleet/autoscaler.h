// Autoscalers: how many replicas a pool should have. Small policy classes behind one
// interface, chosen by name (AutoscalerSpec::policy). The event loop calls decide() every
// evaluation_interval_s with what it sees of the pool and applies the answer: it requests
// replicas when the pool has fewer (counting those still starting) and drains the surplus
// when it has more. Definitions of every policy and key: docs/fleet.md, "Autoscalers".
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/fleet/lifecycle.h"

namespace tidal::fleet {

// What the autoscaler of one pool sees at one instant.
struct FleetObservation {
  int64_t time_ns = 0;  // never decreases from one call to the next
  std::array<int32_t, kNumLifecycleStates> num_replicas_by_state{};  // indexed by LifecycleState
  int64_t num_running = 0;              // requests in a replica's running batch
  int64_t num_waiting_at_replicas = 0;  // routed, queued in a replica's scheduler
  int64_t num_queued_at_router = 0;     // held at the router (no warm replica / all at max_inputs)
  // TTFT of the pool's requests whose first token came since the previous call. Only read
  // during the call.
  std::span<const double> new_ttft_s;

  int32_t num(LifecycleState state) const {
    return num_replicas_by_state[static_cast<size_t>(state)];
  }
  // requested + provisioning + loading: capacity that is on its way.
  int32_t num_starting() const;
  // starting + warm: every replica that is not draining or stopped.
  int32_t num_provisioned() const;
  int64_t num_waiting() const { return num_waiting_at_replicas + num_queued_at_router; }
  int64_t num_outstanding() const { return num_running + num_waiting(); }
};

struct Decision {
  int32_t num_desired_replicas = 0;  // replicas that should be provisioned (not draining)
};

class Autoscaler {
 public:
  virtual ~Autoscaler() = default;
  virtual Decision decide(const FleetObservation& observation) = 0;
};

// One point of a daily plan: from `hour` (clock hour in [0, 24)) on, `num_replicas`.
struct SchedulePoint {
  double hour = 0.0;
  int32_t num_replicas = 0;
};

// Every key of every policy; parse_autoscaler_spec accepts only the chosen policy's keys.
struct AutoscalerSpec {
  std::string policy = "fixed";  // one of autoscaler_names()
  double evaluation_interval_s = 15.0;
  // Bounds and stabilization (target_concurrency, queue_depth, latency_slo).
  int32_t min_replicas = 0;
  int32_t max_replicas = 64;
  double scale_up_delay_s = 0.0;       // demand must be sustained this long before scaling up
  double scale_down_delay_s = 0.0;     // no scale-down until this long after the last scale-up
  double scale_down_window_s = 300.0;  // scale down only to the largest count of this window
  // target_concurrency
  double target_inputs = 16.0;        // outstanding requests per replica aimed for
  std::optional<int64_t> max_inputs;  // hard cap per replica; the router queues beyond it
  int32_t buffer_replicas = 0;        // warm spares on top of demand
  // queue_depth
  double scale_up_waiting_per_replica = 4.0;
  double scale_down_running_per_replica = 8.0;
  // latency_slo
  double target_ttft_p90_s = 1.0;
  double latency_window_s = 60.0;
  double scale_down_ttft_ratio = 0.5;  // scale down while p90 < ratio * target
  double max_scale_up_factor = 2.0;    // one step multiplies warm replicas by at most this
  // scheduled
  std::vector<SchedulePoint> schedule;  // hours strictly increasing
  double start_hour = 0.0;              // clock hour at simulated time 0
  double lead_s = 0.0;                  // follow the plan this far ahead (to be warm in time)
};

// Registered names, in registry order: fixed, target_concurrency, queue_depth, latency_slo,
// scheduled.
std::span<const std::string_view> autoscaler_names();

// Parses an `autoscaler` object: `policy` plus that policy's keys, each optional except a
// scheduled policy's `schedule`. Unknown keys, keys of another policy, bad values and
// min_replicas > max_replicas are InputErrors naming `where` and the JSON path.
AutoscalerSpec parse_autoscaler_spec(const nlohmann::json& json, const std::string& where,
                                     const std::string& path);

// `initial_replicas` is the pool's count at time 0 (the fixed policy keeps it). The spec must
// come from parse_autoscaler_spec (std::logic_error for an unknown policy).
std::unique_ptr<Autoscaler> make_autoscaler(const AutoscalerSpec& spec, int32_t initial_replicas);

}  // namespace tidal::fleet
