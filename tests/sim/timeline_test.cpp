#include "sim/timeline.h"

#include <gtest/gtest.h>

#include "sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::h100_pool;
using testing::scenario_from;

Scenario two_replicas() {
  nlohmann::json pool = h100_pool(2);
  pool["price_per_gpu_hour"] = 3.6;  // $0.001 per GPU-second
  return scenario_from(
      {{"workloads", {{{"generator", {{"kind", "poisson"}}}}}}, {"fleet", {{"pools", {pool}}}}});
}

TEST(Timeline, CountersBusyTimeAndCostPerInterval) {
  const Scenario s = two_replicas();
  const Cluster cluster(s);
  TimelineRecorder rec(1'000'000'000, cluster);  // 1 s
  rec.advance_to(0);
  rec.add_arrival();
  rec.add_busy(500'000'000, 2'500'000'000);  // 0.5 s, 1 s, 0.5 s over intervals 0, 1, 2
  rec.advance_to(1'200'000'000);
  rec.add_arrival();
  rec.add_output_tokens(7);
  rec.advance_to(2'000'000'000);  // closes [1, 2) exactly at its end
  rec.add_finished();
  rec.add_rejected();
  const std::vector<TimelineRow> rows = rec.finish(2'750'000'000);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].num_arrivals, 1);
  EXPECT_DOUBLE_EQ(rows[0].utilization, 0.25);  // 0.5 s busy of 2 replica-seconds
  EXPECT_EQ(rows[1].num_arrivals, 1);
  EXPECT_EQ(rows[1].num_output_tokens, 7);
  EXPECT_DOUBLE_EQ(rows[1].utilization, 0.5);
  EXPECT_EQ(rows[2].start_ns, 2'000'000'000);
  EXPECT_EQ(rows[2].end_ns, 2'750'000'000);
  EXPECT_EQ(rows[2].num_finished, 1);
  EXPECT_EQ(rows[2].num_rejected, 1);
  EXPECT_DOUBLE_EQ(rows[2].utilization, 0.5 / 1.5);
  EXPECT_EQ(rows[0].num_replicas_by_state[static_cast<size_t>(ReplicaState::warm)], 2);
  EXPECT_EQ(rows[0].queue_depth, 0);
  EXPECT_EQ(rows[0].kv_usage, 0.0);
  // Dollars come from the billing ledger (tests/sim/fleet_billing_test.cpp).
}

TEST(Timeline, LongIdleGapsStillGetRows) {
  const Scenario s = two_replicas();
  const Cluster cluster(s);
  TimelineRecorder rec(1'000'000'000, cluster);
  rec.advance_to(5'000'000'000);
  rec.add_arrival();
  const std::vector<TimelineRow> rows = rec.finish(5'000'000'001);
  ASSERT_EQ(rows.size(), 6u);
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(rows[i].num_arrivals, 0);
  EXPECT_EQ(rows[5].num_arrivals, 1);
  EXPECT_EQ(rows[5].end_ns, 5'000'000'001);
}

}  // namespace
}  // namespace tidal::sim
