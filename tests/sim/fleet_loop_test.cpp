// The fleet in the full event loop: the autoscaler reacts within its configured delays, no
// request is lost across spot interruptions and scale-downs, and billing adds up to the
// timeline exactly.
#include <gtest/gtest.h>

#include "fleet_test_util.h"
#include "sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::FleetRun;
using testing::h100_pool;
using testing::run_fleet_example;
using testing::run_fleet_scenario;
using testing::scenario_from;

constexpr int64_t kSecond = 1'000'000'000;

int32_t num_starting(const TimelineRow& row) {
  const auto& s = row.num_replicas_by_state;
  return s[static_cast<size_t>(ReplicaState::requested)] +
         s[static_cast<size_t>(ReplicaState::provisioning)] +
         s[static_cast<size_t>(ReplicaState::loading)];
}

// A burst (20 req/s for 30 s) on one replica, then a trickle until 150 s.
Scenario autoscaled_scenario() {
  nlohmann::json pool = h100_pool(1);
  pool["autoscaler"] = {{"policy", "target_concurrency"},
                        {"target_inputs", 4},
                        {"min_replicas", 1},
                        {"max_replicas", 4},
                        {"evaluation_interval_s", 5},
                        {"scale_up_delay_s", 10},
                        {"scale_down_window_s", 20}};
  pool["cold_start"] = {{"provisioning_s", 7}, {"snapshot", {{"enabled", true}}}};
  const nlohmann::json burst = {{"name", "burst"},
                                {"generator",
                                 {{"kind", "poisson"},
                                  {"rate", 20},
                                  {"duration_s", 30},
                                  {"prompt", {{"dist", "fixed"}, {"value", 1000}}},
                                  {"output", {{"dist", "fixed"}, {"value", 300}}}}}};
  const nlohmann::json trickle = {{"name", "trickle"},
                                  {"start_s", 30},
                                  {"generator",
                                   {{"kind", "poisson"},
                                    {"rate", 0.5},
                                    {"duration_s", 120},
                                    {"prompt", {{"dist", "fixed"}, {"value", 1000}}}}}};
  return scenario_from(
      {{"seed", 1}, {"workloads", {burst, trickle}}, {"fleet", {{"pools", {pool}}}}});
}

TEST(FleetLoop, AutoscalerReactsWithinItsDelaysAndDrainsWithoutLosingRequests) {
  const FleetRun run = run_fleet_scenario(autoscaled_scenario());
  const double cold_s = run.scenario.pools[0].cold_start_times.total_s();
  int64_t first_request_ns = -1;
  int64_t first_second_warm_ns = -1;
  for (const TimelineRow& row : run.result.timeline) {
    if (first_request_ns < 0 && num_starting(row) > 0) first_request_ns = row.start_ns;
    if (first_second_warm_ns < 0 &&
        row.num_replicas_by_state[static_cast<size_t>(ReplicaState::warm)] > 1) {
      first_second_warm_ns = row.start_ns;
    }
  }
  // Demand is seen at the first evaluation after the burst starts (5 s) and must be sustained
  // scale_up_delay_s (10 s): the first scale-up comes at 10-15 s, on an evaluation tick.
  ASSERT_GE(first_request_ns, 0);
  EXPECT_GE(first_request_ns, 10 * kSecond);
  EXPECT_LE(first_request_ns, 15 * kSecond);
  // It serves a cold start later (timeline rows are 1 s).
  ASSERT_GE(first_second_warm_ns, 0);
  EXPECT_NEAR(static_cast<double>(first_second_warm_ns - first_request_ns) / 1e9, cold_s, 1.0);
  const RunMetrics& m = run.metrics;
  EXPECT_GT(m.fleet.num_scale_ups, 0);
  EXPECT_GT(m.fleet.num_scale_downs, 0);  // the trickle drains the surplus
  EXPECT_LE(m.fleet.peak_replicas[0], 4);
  EXPECT_EQ(m.num_finished, m.num_requests);  // drained, not dropped
  EXPECT_EQ(m.num_rejected, 0);
  const auto& draining = run.result.timeline;
  bool saw_draining_or_stopped = false;
  for (const TimelineRow& row : draining) {
    saw_draining_or_stopped |=
        row.num_replicas_by_state[static_cast<size_t>(ReplicaState::stopped)] > 0;
  }
  EXPECT_TRUE(saw_draining_or_stopped);
}

TEST(FleetLoop, SpotInterruptionsRequeueWithoutLosingRequests) {
  const FleetRun run = run_fleet_example("spot.json");
  const RunMetrics& m = run.metrics;
  EXPECT_GT(m.fleet.num_spot_interruptions, 0);
  EXPECT_GT(m.fleet.num_requeues, 0);
  EXPECT_EQ(m.num_finished, m.num_requests);
  EXPECT_EQ(m.num_rejected, 0);
  int64_t requeued_tokens_ok = 0;
  for (size_t i = 0; i < run.result.records.size(); ++i) {
    const RequestRecord& r = run.result.records[i];
    if (r.num_requeues > 0) {
      EXPECT_EQ(r.num_output_tokens_done, run.result.table.requests[i].output_tokens);
      ++requeued_tokens_ok;
    }
  }
  EXPECT_GT(requeued_tokens_ok, 0);
}

TEST(FleetLoop, BillingAddsUpToTheTimelineExactly) {
  for (const char* name : {"spot.json", "burst-cold.json"}) {
    const FleetRun run = run_fleet_example(name);
    const fleet::MicroDollars total = run.result.fleet.billing.fleet.total;
    fleet::MicroDollars sum = 0;
    for (const TimelineRow& row : run.result.timeline) sum += row.micro_dollars;
    EXPECT_EQ(sum, total) << name;
    EXPECT_EQ(run.result.timeline.back().cumulative_micro_dollars, total) << name;
    EXPECT_EQ(run.metrics.dollars, fleet::to_dollars(total)) << name;
    EXPECT_GT(total, 0) << name;
    double by_state =
        run.metrics.fleet.dollars_granularity + run.metrics.fleet.dollars_reserved_unused;
    for (const auto& [state, dollars] : run.metrics.fleet.dollars_by_state) by_state += dollars;
    EXPECT_NEAR(by_state, run.metrics.dollars, 0.005) << name;  // to the cent
  }
}

TEST(FleetLoop, SameSeedSameRun) {
  const FleetRun a = run_fleet_example("spot.json");
  const FleetRun b = run_fleet_example("spot.json");
  ASSERT_EQ(a.result.records.size(), b.result.records.size());
  for (size_t i = 0; i < a.result.records.size(); ++i) {
    EXPECT_EQ(a.result.records[i].finish_ns, b.result.records[i].finish_ns);
  }
  EXPECT_EQ(a.result.fleet.billing.fleet.total, b.result.fleet.billing.fleet.total);
}

}  // namespace
}  // namespace tidal::sim
