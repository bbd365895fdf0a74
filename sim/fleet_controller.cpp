#include "sim/fleet_controller.h"

#include <algorithm>

#include "sim/fleet/energy_model.h"
#include "sim/fleet/spec_reading.h"
#include "traces/random.h"

namespace tidal::sim {
namespace {

constexpr uint64_t kSpotStream = 0x5b07'0000'0000'0000ULL;  // seeds of spot processes

std::vector<fleet::PoolPricing> pool_pricings(const Scenario& scenario) {
  std::vector<fleet::PoolPricing> result;
  for (const PoolSpec& p : scenario.pools) result.push_back(p.pool_pricing);
  return result;
}

bool is_starting(ReplicaState s) {
  return s == ReplicaState::requested || s == ReplicaState::provisioning ||
         s == ReplicaState::loading;
}

}  // namespace

FleetController::FleetController(const Scenario& scenario, Cluster& cluster, EventQueue& queue)
    : scenario_(scenario), cluster_(cluster), queue_(queue), ledger_(pool_pricings(scenario)) {
  const size_t num_pools = scenario.pools.size();
  for (size_t p = 0; p < num_pools; ++p) {
    const PoolSpec& pool = scenario.pools[p];
    autoscalers_.push_back(fleet::make_autoscaler(pool.autoscaler, pool.num_replicas));
    spot_.emplace_back(pool.spot, traces::derive_seed(scenario.seed ^ kSpotStream, p));
    report_.cold_start_s.push_back(pool.cold_start_times.total_s());
  }
  num_reserved_in_use_.assign(num_pools, 0);
  new_ttft_s_.resize(num_pools);
  report_.peak_replicas.assign(num_pools, 0);
  report_.num_scale_ups.assign(num_pools, 0);
  report_.num_scale_downs.assign(num_pools, 0);
  report_.num_spot_interruptions.assign(num_pools, 0);
}

void FleetController::start() {
  for (int32_t i = 0; i < cluster_.num_replicas(); ++i) {
    Replica& r = cluster_.replica(i);
    const ReplicaState initial = r.state;
    r.state = ReplicaState::stopped;  // not yet known to the ledger
    set_state(i, initial, 0);
  }
  for (size_t p = 0; p < scenario_.pools.size(); ++p) {
    track_peak(static_cast<int32_t>(p));
    // A fixed pool only needs its autoscaler to replace replicas spot interruptions take.
    const PoolSpec& pool = scenario_.pools[p];
    if (pool.autoscaler.policy != "fixed" || pool.is_spot()) {
      queue_.push(0, EventKind::autoscale, -1, static_cast<int64_t>(p));
    }
  }
}

void FleetController::set_state(int32_t index, ReplicaState state, int64_t now_ns) {
  Replica& r = cluster_.replica(index);
  const auto pool = static_cast<size_t>(r.pool());
  const PoolSpec& spec = scenario_.pools[pool];
  if (r.state == ReplicaState::warm || r.state == ReplicaState::draining) {
    r.warm_ns += now_ns - r.state_since_ns;
  }
  if (fleet::draws_power(r.state)) r.powered_ns += now_ns - r.state_since_ns;
  r.state = state;
  r.state_since_ns = now_ns;
  ledger_.record(now_ns, index, r.pool(), state);
  const bool billed = spec.pool_pricing.billed_states[static_cast<size_t>(state)];
  if (billed && !r.lease_open) {
    // Mirrors the ledger: a lease opening while a reserved slot is free takes it.
    r.lease_open = true;
    if (num_reserved_in_use_[pool] < spec.pool_pricing.reserved_replicas) {
      ++num_reserved_in_use_[pool];
      r.reserved = true;
    } else if (spec.is_spot()) {
      const fleet::SpotInterruption when =
          spot_[pool].interruption(static_cast<uint64_t>(index), 0, now_ns);
      queue_.push(when.notice_ns, EventKind::spot_notice, index, -1);
      queue_.push(when.interrupt_ns, EventKind::spot_interrupt, index, -1);
    }
  } else if (!billed && r.lease_open && state == ReplicaState::stopped) {
    r.lease_open = false;
    if (r.reserved) --num_reserved_in_use_[pool];
    r.reserved = false;
  }
  cluster_.refresh_load(index);
}

void FleetController::track_peak(int32_t pool) {
  int32_t provisioned = 0;
  for (int32_t i = 0; i < cluster_.num_replicas(); ++i) {
    const Replica& r = cluster_.replica(i);
    if (r.pool() == pool && (is_starting(r.state) || r.state == ReplicaState::warm)) ++provisioned;
  }
  int32_t& peak = report_.peak_replicas[static_cast<size_t>(pool)];
  peak = std::max(peak, provisioned);
}

void FleetController::on_autoscale(int32_t pool, int64_t now_ns, int64_t num_queued_at_router,
                                   bool keep_going) {
  const auto p = static_cast<size_t>(pool);
  fleet::FleetObservation obs;
  obs.time_ns = now_ns;
  for (int32_t i = 0; i < cluster_.num_replicas(); ++i) {
    const Replica& r = cluster_.replica(i);
    if (r.pool() != pool) continue;
    ++obs.num_replicas_by_state[static_cast<size_t>(r.state)];
    if (r.state == ReplicaState::stopped) continue;
    obs.num_running += r.scheduler().num_running();
    obs.num_waiting_at_replicas += r.scheduler().num_waiting() + r.scheduler().num_swapped();
  }
  obs.num_queued_at_router = num_queued_at_router;
  obs.new_ttft_s = new_ttft_s_[p];
  const int32_t desired = autoscalers_[p]->decide(obs).num_desired_replicas;
  new_ttft_s_[p].clear();
  const int32_t provisioned = obs.num_provisioned();
  if (desired > provisioned) scale_up(pool, desired - provisioned, now_ns);
  if (desired < provisioned) scale_down(pool, provisioned - desired, now_ns);
  track_peak(pool);
  if (keep_going) {
    const int64_t interval = std::max<int64_t>(
        1, fleet::seconds_to_ns(scenario_.pools[p].autoscaler.evaluation_interval_s));
    queue_.push(now_ns + interval, EventKind::autoscale, -1, pool);
  }
}

void FleetController::scale_up(int32_t pool, int32_t count, int64_t now_ns) {
  const PoolSpec& spec = scenario_.pools[static_cast<size_t>(pool)];
  const int64_t provisioning_ns = fleet::seconds_to_ns(spec.cold_start_times.provisioning_s);
  const int64_t loading_ns = fleet::seconds_to_ns(spec.cold_start_times.loading_s());
  for (int32_t k = 0; k < count; ++k) {
    const int32_t index = cluster_.add_replica(pool, ReplicaState::stopped);
    set_state(index, ReplicaState::requested, now_ns);
    set_state(index, ReplicaState::provisioning, now_ns);
    queue_.push(now_ns + provisioning_ns, EventKind::lifecycle, index,
                static_cast<int64_t>(ReplicaState::loading));
    queue_.push(now_ns + provisioning_ns + loading_ns, EventKind::lifecycle, index,
                static_cast<int64_t>(ReplicaState::warm));
    ++report_.num_scale_ups[static_cast<size_t>(pool)];
  }
}

// Cancels starting replicas first (newest first), then drains warm ones with the fewest
// outstanding requests (newest first on ties).
void FleetController::scale_down(int32_t pool, int32_t count, int64_t now_ns) {
  for (int32_t i = cluster_.num_replicas() - 1; i >= 0 && count > 0; --i) {
    const Replica& r = cluster_.replica(i);
    if (r.pool() != pool || !is_starting(r.state)) continue;
    set_state(i, ReplicaState::stopped, now_ns);
    cluster_.replica(i).release();
    ++report_.num_scale_downs[static_cast<size_t>(pool)];
    --count;
  }
  while (count > 0) {
    int32_t victim = -1;
    for (int32_t i = cluster_.num_replicas() - 1; i >= 0; --i) {
      const Replica& r = cluster_.replica(i);
      if (r.pool() != pool || r.state != ReplicaState::warm) continue;
      if (victim < 0 || r.num_outstanding < cluster_.replica(victim).num_outstanding) victim = i;
    }
    if (victim < 0) return;
    set_state(victim, ReplicaState::draining, now_ns);
    ++report_.num_scale_downs[static_cast<size_t>(pool)];
    stop_if_drained(victim, now_ns);
    --count;
  }
}

bool FleetController::on_lifecycle(int32_t index, ReplicaState next, int64_t now_ns) {
  const ReplicaState current = cluster_.replica(index).state;
  const bool expected = (next == ReplicaState::loading && current == ReplicaState::provisioning) ||
                        (next == ReplicaState::warm && current == ReplicaState::loading);
  if (!expected) return false;  // cancelled or interrupted meanwhile
  set_state(index, next, now_ns);
  return next == ReplicaState::warm;
}

void FleetController::on_spot_notice(int32_t index, int64_t now_ns) {
  const ReplicaState current = cluster_.replica(index).state;
  if (current == ReplicaState::stopped) return;
  ++report_.num_spot_interruptions[static_cast<size_t>(cluster_.replica(index).pool())];
  if (is_starting(current)) {
    set_state(index, ReplicaState::stopped, now_ns);
    cluster_.replica(index).release();
  } else if (current == ReplicaState::warm) {
    set_state(index, ReplicaState::draining, now_ns);
    stop_if_drained(index, now_ns);
  }
}

void FleetController::stop_if_drained(int32_t index, int64_t now_ns) {
  const Replica& r = cluster_.replica(index);
  if (r.state == ReplicaState::draining && r.num_outstanding == 0 && !r.stepping) {
    set_state(index, ReplicaState::stopped, now_ns);
    cluster_.replica(index).release();
  }
}

FleetReport FleetController::finish(int64_t end_ns, int64_t interval_ns) {
  for (int32_t i = 0; i < cluster_.num_replicas(); ++i) {
    Replica& r = cluster_.replica(i);
    if (r.state == ReplicaState::warm || r.state == ReplicaState::draining) {
      r.warm_ns += end_ns - r.state_since_ns;
    }
    if (fleet::draws_power(r.state)) {
      r.powered_ns += end_ns - r.state_since_ns;
      r.state_since_ns = end_ns;
    }
  }
  ledger_.finish(end_ns);
  report_.billing = ledger_.report();
  report_.interval_costs = ledger_.interval_costs(interval_ns);
  return std::move(report_);
}

}  // namespace tidal::sim
