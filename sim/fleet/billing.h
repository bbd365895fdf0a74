// The BillingLedger: receives replica lifecycle changes as the event loop makes them and turns
// them into dollars, exactly (integer micro-dollars).
//
// Definitions (docs/fleet.md, "Billing"):
// - A lease is a maximal stretch of time a replica spends in billed states (PoolPricing::
//   billed_states). It opens when the replica enters a billed state and closes when it enters
//   an unbilled one, or at finish().
// - A lease that opens while its pool has a free reserved slot takes that slot for its whole
//   life (lowest free slot first) and costs nothing beyond the reservation; other leases pay
//   the pool's market price (on-demand or spot). Reserved slots are billed for the whole run
//   [0, end], used or not.
// - A market lease of duration D is billed for max(minimum, ceil(D / period) * period); the
//   part past D is the `granularity` charge, booked when the lease closes.
// - Cost accrues along a lease as floor(price * gpus * elapsed / 1 h) micro-dollars; every
//   figure (by state, by interval, totals) is a difference of that function at two instants,
//   so they add up exactly.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/fleet/lifecycle.h"
#include "sim/fleet/pricing.h"

namespace tidal::fleet {

enum class RateClass : uint8_t { on_demand, spot, reserved };
inline constexpr int kNumRateClasses = 3;

struct BillingTotals {
  MicroDollars total = 0;
  // Time in each lifecycle state, at the price its lease paid (reserved slots: reserved price).
  std::array<MicroDollars, kNumLifecycleStates> by_state{};
  MicroDollars granularity = 0;      // billed past lease ends: rounding up and minimums
  MicroDollars reserved_unused = 0;  // reserved slot time no replica used
  std::array<MicroDollars, kNumRateClasses> by_rate_class{};  // what each price class earned
  std::array<double, kNumLifecycleStates> gpu_hours_by_state{};
  double gpu_hours_billed = 0.0;  // market leases as billed + every reserved slot for the run
};

struct BillingReport {
  BillingTotals fleet;
  std::vector<BillingTotals> by_pool;  // [num_pools]
};

// What a market lease of `duration_ns` is billed: rounded up to the billing period, at least
// the minimum.
int64_t billed_lease_ns(const PoolPricing& pricing, int64_t duration_ns);

class BillingLedger {
 public:
  // One PoolPricing per pool; pool ids in record() index this vector.
  explicit BillingLedger(std::vector<PoolPricing> pools);

  // Replica `replica` (any id >= 0, always in the same pool) enters `state` at `time_ns`.
  // Times never decrease; a repeated state is ignored. Misuse is a std::logic_error.
  void record(int64_t time_ns, int32_t replica, int32_t pool, LifecycleState state);

  // Ends the run at `end_ns` (>= every recorded time): closes open leases and the
  // reservations. Required before report() and interval_costs(); record() is refused after.
  void finish(int64_t end_ns);

  BillingReport report() const;
  // Dollars per interval [k * interval_ns, (k + 1) * interval_ns) of [0, end_ns), the last one
  // possibly shorter: [ceil(end_ns / interval_ns)], at least one. Sums exactly to the total.
  // Granularity charges fall in the interval holding their lease's end (the last one when the
  // lease ends at end_ns); reservations accrue evenly.
  std::vector<MicroDollars> interval_costs(int64_t interval_ns) const;

 private:
  struct Lease {
    int32_t pool = 0;
    RateClass rate_class = RateClass::on_demand;
    int32_t reserved_slot = -1;
    MicroDollars per_gpu_hour = 0;
    int64_t start_ns = 0;
    int64_t end_ns = -1;    // -1 while open
    int64_t billed_ns = 0;  // set when closed
  };
  struct Segment {
    int32_t lease = 0;
    LifecycleState state = LifecycleState::warm;
    int64_t start_ns = 0;
    int64_t end_ns = 0;
  };
  struct ReplicaStatus {
    int32_t pool = -1;  // -1: never seen
    LifecycleState state = LifecycleState::stopped;
    int64_t since_ns = 0;
    int32_t open_lease = -1;
  };

  // Cost of a lease's first `elapsed_ns` nanoseconds.
  MicroDollars lease_cost(const Lease& lease, int64_t elapsed_ns) const;
  // Cost of a pool's reservation over [0, time_ns].
  MicroDollars reservation_cost(int32_t pool, int64_t time_ns) const;
  void close_segment(ReplicaStatus& status, int64_t time_ns);
  void close_lease(int32_t lease_index, int64_t time_ns);

  std::vector<PoolPricing> pools_;              // [num_pools]
  std::vector<std::vector<bool>> slot_in_use_;  // [num_pools][reserved_replicas]
  std::vector<ReplicaStatus> replicas_;         // [max replica id + 1]
  std::vector<Lease> leases_;                   // in opening order
  std::vector<Segment> segments_;               // billed state stretches, in closing order
  int64_t last_time_ns_ = 0;
  int64_t end_ns_ = -1;  // -1 until finish()
};

}  // namespace tidal::fleet
