// BillingLedger: leases, billed states, granularity, reserved vs market, exact timelines.
#include "sim/fleet/billing.h"

#include <numeric>
#include <random>
#include <stdexcept>

#include <gtest/gtest.h>

namespace tidal::fleet {
namespace {

constexpr int64_t kS = 1'000'000'000;  // ns per second
using S = LifecycleState;

// $3.60 per GPU-hour = 1,000 micro-dollars per GPU-second.
PoolPricing pricing(BillingGranularity granularity = BillingGranularity::per_second,
                    int32_t reserved = 0) {
  PricingSpec spec;
  spec.on_demand_per_gpu_hour = 3.6;
  spec.spot_per_gpu_hour = 1.44;
  spec.reserved_per_gpu_hour = 1.8;
  spec.reserved_replicas = reserved;
  spec.granularity = granularity;
  return resolve_pricing(spec, perf::find_gpu("H100-SXM", "test"), 1, "pool");
}

MicroDollars sum(const std::vector<MicroDollars>& values) {
  return std::accumulate(values.begin(), values.end(), MicroDollars{0});
}

TEST(Billing, BillsOnlyBilledStatesByState) {
  BillingLedger ledger({pricing()});
  ledger.record(0, 0, 0, S::requested);
  ledger.record(0, 0, 0, S::provisioning);
  ledger.record(10 * kS, 0, 0, S::loading);
  ledger.record(40 * kS, 0, 0, S::warm);
  ledger.record(100 * kS, 0, 0, S::draining);
  ledger.record(110 * kS, 0, 0, S::stopped);
  ledger.finish(200 * kS);
  const BillingReport report = ledger.report();
  const BillingTotals& fleet = report.fleet;
  EXPECT_EQ(fleet.by_state[static_cast<size_t>(S::provisioning)], 0);
  EXPECT_EQ(fleet.by_state[static_cast<size_t>(S::loading)], 30'000);
  EXPECT_EQ(fleet.by_state[static_cast<size_t>(S::warm)], 60'000);
  EXPECT_EQ(fleet.by_state[static_cast<size_t>(S::draining)], 10'000);
  EXPECT_EQ(fleet.granularity, 0);
  EXPECT_EQ(fleet.total, 100'000);
  EXPECT_EQ(fleet.by_rate_class[static_cast<size_t>(RateClass::on_demand)], 100'000);
  EXPECT_DOUBLE_EQ(fleet.gpu_hours_by_state[static_cast<size_t>(S::warm)], 60.0 / 3600);
  EXPECT_DOUBLE_EQ(fleet.gpu_hours_billed, 100.0 / 3600);
  ASSERT_EQ(report.by_pool.size(), 1u);
  EXPECT_EQ(report.by_pool[0].total, fleet.total);
}

TEST(Billing, ProvisioningCanBeBilled) {
  PoolPricing billed = pricing();
  billed.billed_states[static_cast<size_t>(S::provisioning)] = true;
  BillingLedger ledger({billed});
  ledger.record(0, 0, 0, S::provisioning);
  ledger.record(10 * kS, 0, 0, S::loading);
  ledger.record(20 * kS, 0, 0, S::stopped);
  ledger.finish(20 * kS);
  EXPECT_EQ(ledger.report().fleet.by_state[static_cast<size_t>(S::provisioning)], 10'000);
  EXPECT_EQ(ledger.report().fleet.total, 20'000);
}

// One warm lease of `lease_ns` under `granularity`; returns the report.
BillingTotals one_lease(const PoolPricing& pool, int64_t lease_ns) {
  BillingLedger ledger({pool});
  ledger.record(0, 0, 0, S::warm);
  ledger.record(lease_ns, 0, 0, S::stopped);
  ledger.finish(lease_ns);
  return ledger.report().fleet;
}

TEST(Billing, LeasesRoundUpToTheBillingPeriod) {
  BillingTotals second = one_lease(pricing(BillingGranularity::per_second), 61'500'000'000);
  EXPECT_EQ(second.by_state[static_cast<size_t>(S::warm)], 61'500);
  EXPECT_EQ(second.granularity, 500);
  EXPECT_EQ(second.total, 62'000);

  BillingTotals minute = one_lease(pricing(BillingGranularity::per_minute), 61 * kS);
  EXPECT_EQ(minute.granularity, 59'000);
  EXPECT_EQ(minute.total, 120'000);
  EXPECT_DOUBLE_EQ(minute.gpu_hours_billed, 120.0 / 3600);

  BillingTotals hour = one_lease(pricing(BillingGranularity::per_hour), 61 * kS);
  EXPECT_EQ(hour.total, 3'600'000);

  BillingTotals exact = one_lease(pricing(BillingGranularity::per_minute), 120 * kS);
  EXPECT_EQ(exact.granularity, 0);

  PoolPricing minimum = pricing(BillingGranularity::per_second);
  minimum.minimum_billed_ns = 60 * kS;
  EXPECT_EQ(one_lease(minimum, 10 * kS).total, 60'000);
  EXPECT_EQ(one_lease(minimum, 75 * kS).total, 75'000);
}

TEST(Billing, EachLeaseRoundsSeparately) {
  BillingLedger ledger({pricing(BillingGranularity::per_minute)});
  ledger.record(0, 0, 0, S::warm);
  ledger.record(10 * kS, 0, 0, S::stopped);
  ledger.record(20 * kS, 0, 0, S::loading);
  ledger.record(20 * kS, 0, 0, S::loading);  // repeated state: ignored
  ledger.record(30 * kS, 0, 0, S::warm);     // same lease continues
  ledger.record(50 * kS, 0, 0, S::stopped);
  ledger.finish(60 * kS);
  const BillingTotals fleet = ledger.report().fleet;
  EXPECT_EQ(fleet.total, 2 * 60'000);  // two leases of 10 s and 30 s, one minute each
  EXPECT_EQ(fleet.granularity, 2 * 60'000 - 40'000);
}

TEST(Billing, ReservedSlotsAreBilledAllRunAndExcessPaysOnDemand) {
  BillingLedger ledger({pricing(BillingGranularity::per_second, 1)});
  ledger.record(0, 0, 0, S::warm);        // takes the reserved slot
  ledger.record(20 * kS, 1, 0, S::warm);  // excess: on demand
  ledger.record(50 * kS, 1, 0, S::stopped);
  ledger.record(60 * kS, 0, 0, S::stopped);  // slot idle from here on
  ledger.finish(100 * kS);
  const BillingTotals fleet = ledger.report().fleet;
  const MicroDollars reservation = 100 * 500;  // $1.80/h = 500 micro-dollars per second
  EXPECT_EQ(fleet.by_rate_class[static_cast<size_t>(RateClass::reserved)], reservation);
  EXPECT_EQ(fleet.by_rate_class[static_cast<size_t>(RateClass::on_demand)], 30'000);
  EXPECT_EQ(fleet.by_state[static_cast<size_t>(S::warm)], 60 * 500 + 30'000);
  EXPECT_EQ(fleet.reserved_unused, 40 * 500);
  EXPECT_EQ(fleet.total, reservation + 30'000);
  EXPECT_DOUBLE_EQ(fleet.gpu_hours_billed, (100.0 + 30.0) / 3600);
}

TEST(Billing, ReservedBeatsOnDemandForASteadyFleetAndLosesWhenIdle) {
  auto steady = [](int32_t reserved, int64_t busy_ns) {
    BillingLedger ledger({pricing(BillingGranularity::per_hour, reserved)});
    for (int32_t r = 0; r < 2; ++r) ledger.record(0, r, 0, S::warm);
    for (int32_t r = 0; r < 2; ++r) ledger.record(busy_ns, r, 0, S::stopped);
    ledger.finish(10 * 3600 * kS);
    return ledger.report().fleet.total;
  };
  EXPECT_EQ(steady(0, 10 * 3600 * kS), 2 * 10 * 3'600'000);
  EXPECT_EQ(steady(2, 10 * 3600 * kS), 2 * 10 * 1'800'000);
  // Busy one hour of ten: the commitment costs more than paying on demand.
  EXPECT_EQ(steady(0, 3600 * kS), 2 * 3'600'000);
  EXPECT_EQ(steady(2, 3600 * kS), 2 * 10 * 1'800'000);
}

TEST(Billing, SpotMarketPaysTheSpotPrice) {
  PoolPricing spot = pricing();
  spot.market = Market::spot;
  const BillingTotals fleet = one_lease(spot, 10 * kS);
  EXPECT_EQ(fleet.by_rate_class[static_cast<size_t>(RateClass::spot)], 4'000);
  EXPECT_EQ(fleet.total, 4'000);
}

TEST(Billing, OpenLeasesCloseAtFinishAndRoundUp) {
  BillingLedger ledger({pricing(BillingGranularity::per_minute)});
  ledger.record(0, 0, 0, S::warm);
  ledger.finish(90 * kS);
  const BillingTotals fleet = ledger.report().fleet;
  EXPECT_EQ(fleet.by_state[static_cast<size_t>(S::warm)], 90'000);
  EXPECT_EQ(fleet.total, 120'000);
  const std::vector<MicroDollars> intervals = ledger.interval_costs(60 * kS);
  ASSERT_EQ(intervals.size(), 2u);
  EXPECT_EQ(intervals[0], 60'000);
  EXPECT_EQ(intervals[1], 30'000 + 30'000);  // the rounding lands where the lease ends
}

TEST(Billing, ReservationsAccrueEvenlyOverTheTimeline) {
  BillingLedger ledger({pricing(BillingGranularity::per_second, 1)});
  ledger.finish(30 * kS);
  const std::vector<MicroDollars> intervals = ledger.interval_costs(10 * kS);
  EXPECT_EQ(intervals, (std::vector<MicroDollars>{5'000, 5'000, 5'000}));
  EXPECT_EQ(ledger.report().fleet.reserved_unused, 15'000);
}

// A deterministic random fleet: two pools at awkward prices (sub-micro-dollar per ns rates),
// 40 replicas walking through the lifecycle. Every breakdown and every timeline adds up to the
// total exactly.
TEST(Billing, TimelineSumsExactlyToTheTotal) {
  PricingSpec odd;
  odd.on_demand_per_gpu_hour = 2.21;
  odd.reserved_replicas = 3;
  odd.reserved_discount = 0.37;
  odd.granularity = BillingGranularity::per_minute;
  odd.billed_states[static_cast<size_t>(S::provisioning)] = true;
  PricingSpec spot;
  spot.market = Market::spot;
  spot.spot_per_gpu_hour = 0.8777;
  spot.minimum_billed_s = 61.5;
  BillingLedger ledger({resolve_pricing(odd, perf::find_gpu("A100-80GB", "t"), 4, "odd"),
                        resolve_pricing(spot, perf::find_gpu("L4", "t"), 1, "spot")});
  std::mt19937_64 rng(1234);
  std::vector<int> state(40, static_cast<int>(S::stopped));  // [num_replicas]
  int64_t now = 0;
  for (int step = 0; step < 4000; ++step) {
    now += static_cast<int64_t>(rng() % (7 * kS)) + 1;
    const int32_t replica = static_cast<int32_t>(rng() % 40);
    state[replica] = (state[replica] + 1 + static_cast<int>(rng() % 2)) % kNumLifecycleStates;
    ledger.record(now, replica, replica % 2, static_cast<S>(state[replica]));
  }
  ledger.finish(now + 12'345'678'901);
  const BillingReport report = ledger.report();
  const BillingTotals& fleet = report.fleet;
  ASSERT_GT(fleet.total, 0);
  EXPECT_GT(fleet.granularity, 0);
  EXPECT_GT(fleet.reserved_unused, 0);

  MicroDollars by_state = fleet.granularity + fleet.reserved_unused;
  for (MicroDollars cost : fleet.by_state) by_state += cost;
  EXPECT_EQ(by_state, fleet.total);
  MicroDollars by_class = 0;
  for (MicroDollars cost : fleet.by_rate_class) by_class += cost;
  EXPECT_EQ(by_class, fleet.total);
  EXPECT_EQ(report.by_pool[0].total + report.by_pool[1].total, fleet.total);

  for (int64_t interval : {kS / 3, kS, 7 * kS, 3600 * kS, 1'000'000 * kS}) {
    const std::vector<MicroDollars> costs = ledger.interval_costs(interval);
    EXPECT_EQ(sum(costs), fleet.total) << "interval " << interval;
    for (MicroDollars cost : costs) EXPECT_GE(cost, 0);
  }
}

TEST(Billing, MisuseIsALogicError) {
  BillingLedger ledger({pricing(), pricing()});
  ledger.record(10 * kS, 0, 0, S::warm);
  EXPECT_THROW(ledger.record(5 * kS, 0, 0, S::stopped), std::logic_error);
  EXPECT_THROW(ledger.record(10 * kS, 0, 1, S::warm), std::logic_error);  // moved pools
  EXPECT_THROW(ledger.record(10 * kS, 1, 2, S::warm), std::logic_error);  // no pool 2
  EXPECT_THROW(ledger.record(10 * kS, -1, 0, S::warm), std::logic_error);
  EXPECT_THROW(ledger.report(), std::logic_error);
  EXPECT_THROW(ledger.finish(5 * kS), std::logic_error);
  ledger.finish(20 * kS);
  EXPECT_THROW(ledger.record(30 * kS, 0, 0, S::stopped), std::logic_error);
  EXPECT_THROW(ledger.interval_costs(0), std::logic_error);
}

}  // namespace
}  // namespace tidal::fleet
