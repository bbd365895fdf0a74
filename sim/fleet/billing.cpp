#include "sim/fleet/billing.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace tidal::fleet {

namespace {

constexpr int64_t kNsPerHour = 3'600'000'000'000;
__extension__ using Int128 = __int128;  // GCC and Clang; keeps -Wpedantic quiet

// floor(per_gpu_hour * num_gpus * elapsed_ns / 1 h), in 128-bit arithmetic.
MicroDollars accrued(MicroDollars per_gpu_hour, int64_t num_gpus, int64_t elapsed_ns) {
  const Int128 product = static_cast<Int128>(per_gpu_hour) * num_gpus * elapsed_ns;
  const Int128 cost = product / kNsPerHour;  // all factors are >= 0: division floors
  if (cost > std::numeric_limits<MicroDollars>::max()) {
    throw std::logic_error("BillingLedger: a cost overflows 64-bit micro-dollars");
  }
  return static_cast<MicroDollars>(cost);
}

double gpu_hours(int64_t num_gpus, int64_t duration_ns) {
  return static_cast<double>(num_gpus) * static_cast<double>(duration_ns) / kNsPerHour;
}

void add_totals(BillingTotals& into, const BillingTotals& from) {
  into.total += from.total;
  for (int s = 0; s < kNumLifecycleStates; ++s) {
    into.by_state[s] += from.by_state[s];
    into.gpu_hours_by_state[s] += from.gpu_hours_by_state[s];
  }
  into.granularity += from.granularity;
  into.reserved_unused += from.reserved_unused;
  for (int c = 0; c < kNumRateClasses; ++c) into.by_rate_class[c] += from.by_rate_class[c];
  into.gpu_hours_billed += from.gpu_hours_billed;
}

}  // namespace

BillingLedger::BillingLedger(std::vector<PoolPricing> pools) : pools_(std::move(pools)) {
  slot_in_use_.reserve(pools_.size());
  for (const PoolPricing& pool : pools_) {
    if (pool.gpus_per_replica < 1 || pool.reserved_replicas < 0 || pool.billing_period_ns < 1 ||
        pool.minimum_billed_ns < 0 || pool.on_demand_per_gpu_hour < 0 ||
        pool.spot_per_gpu_hour < 0 || pool.reserved_per_gpu_hour < 0) {
      throw std::logic_error("BillingLedger: invalid PoolPricing for pool " + pool.pool_name);
    }
    slot_in_use_.emplace_back(static_cast<size_t>(pool.reserved_replicas), false);
  }
}

MicroDollars BillingLedger::lease_cost(const Lease& lease, int64_t elapsed_ns) const {
  return accrued(lease.per_gpu_hour, pools_[lease.pool].gpus_per_replica, elapsed_ns);
}

MicroDollars BillingLedger::reservation_cost(int32_t pool, int64_t time_ns) const {
  const PoolPricing& pricing = pools_[pool];
  return accrued(pricing.reserved_per_gpu_hour,
                 int64_t{pricing.gpus_per_replica} * pricing.reserved_replicas, time_ns);
}

void BillingLedger::record(int64_t time_ns, int32_t replica, int32_t pool, LifecycleState state) {
  if (end_ns_ >= 0) throw std::logic_error("BillingLedger::record after finish");
  if (time_ns < last_time_ns_) {
    throw std::logic_error(
        fmt::format("BillingLedger::record: time {} ns before {} ns", time_ns, last_time_ns_));
  }
  if (pool < 0 || static_cast<size_t>(pool) >= pools_.size() || replica < 0) {
    throw std::logic_error(
        fmt::format("BillingLedger::record: bad pool {} or replica {}", pool, replica));
  }
  last_time_ns_ = time_ns;
  if (static_cast<size_t>(replica) >= replicas_.size()) replicas_.resize(replica + size_t{1});
  ReplicaStatus& status = replicas_[replica];
  if (status.pool < 0) status.pool = pool;
  if (status.pool != pool) {
    throw std::logic_error(fmt::format("BillingLedger::record: replica {} moved from pool {} to {}",
                                       replica, status.pool, pool));
  }
  if (state == status.state) return;

  close_segment(status, time_ns);
  const PoolPricing& pricing = pools_[pool];
  const bool billed = pricing.billed_states[static_cast<size_t>(state)];
  if (billed && status.open_lease < 0) {
    Lease lease;
    lease.pool = pool;
    lease.start_ns = time_ns;
    std::vector<bool>& slots = slot_in_use_[pool];
    const auto free_slot = std::find(slots.begin(), slots.end(), false);
    if (free_slot != slots.end()) {
      *free_slot = true;
      lease.reserved_slot = static_cast<int32_t>(free_slot - slots.begin());
      lease.rate_class = RateClass::reserved;
      lease.per_gpu_hour = pricing.reserved_per_gpu_hour;
    } else {
      lease.rate_class = pricing.market == Market::spot ? RateClass::spot : RateClass::on_demand;
      lease.per_gpu_hour = pricing.market_per_gpu_hour();
    }
    status.open_lease = static_cast<int32_t>(leases_.size());
    leases_.push_back(lease);
  } else if (!billed && status.open_lease >= 0) {
    close_lease(status.open_lease, time_ns);
    status.open_lease = -1;
  }
  status.state = state;
  status.since_ns = time_ns;
}

void BillingLedger::close_segment(ReplicaStatus& status, int64_t time_ns) {
  if (status.open_lease < 0 || time_ns == status.since_ns) return;
  segments_.push_back(Segment{status.open_lease, status.state, status.since_ns, time_ns});
}

int64_t billed_lease_ns(const PoolPricing& pricing, int64_t duration_ns) {
  const int64_t period = pricing.billing_period_ns;
  const int64_t rounded = (duration_ns + period - 1) / period * period;
  return std::max(rounded, pricing.minimum_billed_ns);
}

void BillingLedger::close_lease(int32_t lease_index, int64_t time_ns) {
  Lease& lease = leases_[lease_index];
  const PoolPricing& pricing = pools_[lease.pool];
  lease.end_ns = time_ns;
  const int64_t duration_ns = time_ns - lease.start_ns;
  if (lease.rate_class == RateClass::reserved) {
    lease.billed_ns = duration_ns;
    slot_in_use_[lease.pool][lease.reserved_slot] = false;
  } else {
    lease.billed_ns = billed_lease_ns(pricing, duration_ns);
  }
}

void BillingLedger::finish(int64_t end_ns) {
  if (end_ns_ >= 0) throw std::logic_error("BillingLedger::finish called twice");
  if (end_ns < last_time_ns_) {
    // The simulator's clock never runs backwards (its inputs are bounded so no time overflows):
    // this is a bug, named in seconds.
    throw std::logic_error(fmt::format(
        "BillingLedger::finish: the run ends at t = {:.9g} s, before the last replica state "
        "change at t = {:.9g} s",
        static_cast<double>(end_ns) * 1e-9, static_cast<double>(last_time_ns_) * 1e-9));
  }
  for (ReplicaStatus& status : replicas_) {
    if (status.open_lease < 0) continue;
    close_segment(status, end_ns);
    close_lease(status.open_lease, end_ns);
    status.open_lease = -1;
  }
  end_ns_ = end_ns;
}

BillingReport BillingLedger::report() const {
  if (end_ns_ < 0) throw std::logic_error("BillingLedger::report before finish");
  BillingReport report;
  report.by_pool.resize(pools_.size());
  std::vector<MicroDollars> reserved_used(pools_.size(), 0);  // [num_pools]

  for (const Segment& segment : segments_) {
    const Lease& lease = leases_[segment.lease];
    const int64_t num_gpus = pools_[lease.pool].gpus_per_replica;
    const MicroDollars cost = lease_cost(lease, segment.end_ns - lease.start_ns) -
                              lease_cost(lease, segment.start_ns - lease.start_ns);
    BillingTotals& pool = report.by_pool[lease.pool];
    const auto state = static_cast<size_t>(segment.state);
    pool.by_state[state] += cost;
    pool.gpu_hours_by_state[state] += gpu_hours(num_gpus, segment.end_ns - segment.start_ns);
    if (lease.rate_class == RateClass::reserved) {
      reserved_used[lease.pool] += cost;
    } else {
      pool.by_rate_class[static_cast<size_t>(lease.rate_class)] += cost;
    }
  }
  for (const Lease& lease : leases_) {
    if (lease.rate_class == RateClass::reserved) continue;
    const MicroDollars extra =
        lease_cost(lease, lease.billed_ns) - lease_cost(lease, lease.end_ns - lease.start_ns);
    BillingTotals& pool = report.by_pool[lease.pool];
    pool.granularity += extra;
    pool.by_rate_class[static_cast<size_t>(lease.rate_class)] += extra;
    pool.gpu_hours_billed += gpu_hours(pools_[lease.pool].gpus_per_replica, lease.billed_ns);
  }
  for (size_t p = 0; p < pools_.size(); ++p) {
    BillingTotals& pool = report.by_pool[p];
    const MicroDollars reservation = reservation_cost(static_cast<int32_t>(p), end_ns_);
    pool.reserved_unused = reservation - reserved_used[p];
    pool.by_rate_class[static_cast<size_t>(RateClass::reserved)] = reservation;
    pool.gpu_hours_billed +=
        gpu_hours(int64_t{pools_[p].gpus_per_replica} * pools_[p].reserved_replicas, end_ns_);
    for (MicroDollars cost : pool.by_state) pool.total += cost;
    pool.total += pool.granularity + pool.reserved_unused;
    add_totals(report.fleet, pool);
  }
  return report;
}

std::vector<MicroDollars> BillingLedger::interval_costs(int64_t interval_ns) const {
  if (end_ns_ < 0) throw std::logic_error("BillingLedger::interval_costs before finish");
  if (interval_ns < 1) throw std::logic_error("BillingLedger::interval_costs: interval < 1 ns");
  const int64_t num_intervals = std::max<int64_t>(1, (end_ns_ + interval_ns - 1) / interval_ns);
  std::vector<MicroDollars> costs(static_cast<size_t>(num_intervals), 0);  // [num_intervals]

  for (const Segment& segment : segments_) {
    const Lease& lease = leases_[segment.lease];
    if (lease.rate_class == RateClass::reserved) continue;  // inside the reservation
    for (int64_t k = segment.start_ns / interval_ns; k * interval_ns < segment.end_ns; ++k) {
      const int64_t lo = std::max(segment.start_ns, k * interval_ns);
      const int64_t hi = std::min(segment.end_ns, (k + 1) * interval_ns);
      costs[k] += lease_cost(lease, hi - lease.start_ns) - lease_cost(lease, lo - lease.start_ns);
    }
  }
  for (const Lease& lease : leases_) {
    if (lease.rate_class == RateClass::reserved) continue;
    const int64_t k = std::min(lease.end_ns / interval_ns, num_intervals - 1);
    costs[k] +=
        lease_cost(lease, lease.billed_ns) - lease_cost(lease, lease.end_ns - lease.start_ns);
  }
  for (size_t p = 0; p < pools_.size(); ++p) {
    if (pools_[p].reserved_replicas == 0) continue;
    for (int64_t k = 0; k < num_intervals; ++k) {
      const int64_t hi = std::min(end_ns_, (k + 1) * interval_ns);
      costs[k] += reservation_cost(static_cast<int32_t>(p), hi) -
                  reservation_cost(static_cast<int32_t>(p), k * interval_ns);
    }
  }
  return costs;
}

}  // namespace tidal::fleet
