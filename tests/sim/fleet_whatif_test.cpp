// What-if directions on generated traffic (examples/fleet, whose README quotes the figures):
// each pair of scenarios must come out the right way round.
#include <gtest/gtest.h>

#include <cstdio>

#include "fleet_test_util.h"

namespace tidal::sim {
namespace {

using testing::FleetRun;
using testing::run_fleet_example;

void print(const char* name, const FleetRun& run) {
  const RunMetrics& m = run.metrics;
  std::printf(
      "%-28s req %lld fin %lld ttft p50 %.3f p99 %.3f e2e p99 %.3f tpot p50 %.4f slo %.3f $ %.4f "
      "$/1M %.4f hit %lld peak %d imb %.2f p2m %.2f cold %.1f\n",
      name, static_cast<long long>(m.num_requests), static_cast<long long>(m.num_finished),
      m.ttft.p50, m.ttft.p99, m.e2e.p99, m.tpot.p50, m.slo_attainment, m.dollars,
      m.dollars_per_1m_tokens.value_or(0.0), static_cast<long long>(m.num_prefix_hit_tokens),
      m.fleet.peak_replicas.empty() ? 0 : m.fleet.peak_replicas[0], m.fleet.routed_tokens_imbalance,
      m.fleet.aggregate_demand.ratio, run.scenario.pools[0].cold_start_times.total_s());
}

TEST(FleetWhatIf, SnapshotsCutColdStartAndBurstTtft) {
  const FleetRun cold = run_fleet_example("burst-cold.json");
  const FleetRun snap = run_fleet_example("burst-snapshot.json");
  print("burst-cold", cold);
  print("burst-snapshot", snap);
  EXPECT_LT(snap.scenario.pools[0].cold_start_times.total_s(),
            cold.scenario.pools[0].cold_start_times.total_s());
  EXPECT_LT(snap.metrics.ttft.p99, cold.metrics.ttft.p99);
  EXPECT_EQ(cold.metrics.num_finished, cold.metrics.num_requests);
  EXPECT_EQ(snap.metrics.num_finished, snap.metrics.num_requests);
}

TEST(FleetWhatIf, SessionRoutingBeatsRoundRobinOnCacheHitsAndTtft) {
  const FleetRun rr = run_fleet_example("sessions-round-robin.json");
  const FleetRun affinity = run_fleet_example("sessions-affinity.json");
  const FleetRun prefix = run_fleet_example("sessions-prefix-aware.json");
  const FleetRun cache = run_fleet_example("sessions-cache-aware.json");
  print("sessions-round-robin", rr);
  print("sessions-affinity", affinity);
  print("sessions-prefix-aware", prefix);
  print("sessions-cache-aware", cache);
  EXPECT_GT(affinity.metrics.num_prefix_hit_tokens, rr.metrics.num_prefix_hit_tokens);
  EXPECT_LT(affinity.metrics.ttft.mean, rr.metrics.ttft.mean);
  EXPECT_GT(cache.metrics.num_prefix_hit_tokens, rr.metrics.num_prefix_hit_tokens);
  EXPECT_LT(cache.metrics.ttft.mean, rr.metrics.ttft.mean);
}

TEST(FleetWhatIf, TokenAwareRoutingBeatsRequestCountOnP99WhenLengthsVary) {
  const FleetRun requests = run_fleet_example("lengths-requests.json");
  const FleetRun tokens = run_fleet_example("lengths-tokens.json");
  print("lengths-requests", requests);
  print("lengths-tokens", tokens);
  EXPECT_LT(tokens.metrics.e2e.p99, requests.metrics.e2e.p99);
}

TEST(FleetWhatIf, AggregatingBurstyTenantsLowersPeakToMeanAndCostPerToken) {
  const FleetRun together = run_fleet_example("tenants-aggregated.json");
  print("tenants-aggregated", together);
  double alone_dollars = 0.0;
  int64_t alone_tokens = 0;
  double min_alone_slo = 1.0;
  for (const char* name :
       {"tenants-alone-a.json", "tenants-alone-b.json", "tenants-alone-c.json"}) {
    const FleetRun alone = run_fleet_example(name);
    print(name, alone);
    alone_dollars += alone.metrics.dollars;
    alone_tokens += alone.metrics.num_input_tokens + alone.metrics.num_output_tokens;
    min_alone_slo = std::min(min_alone_slo, alone.metrics.slo_attainment);
  }
  const RunMetrics& m = together.metrics;
  ASSERT_EQ(m.fleet.tenants.size(), 3u);
  // Each tenant's arrivals alone vs all of them together.
  for (const TenantMetrics& t : m.fleet.tenants) {
    EXPECT_LT(m.fleet.aggregate_demand.ratio, t.demand.ratio) << t.tenant;
    std::printf("tenant %s alone peak-to-mean %.2f, aggregate %.2f\n", t.tenant.c_str(),
                t.demand.ratio, m.fleet.aggregate_demand.ratio);
  }
  const double together_per_token =
      m.dollars / static_cast<double>(m.num_input_tokens + m.num_output_tokens);
  EXPECT_LT(together_per_token, alone_dollars / static_cast<double>(alone_tokens));
  EXPECT_GE(m.slo_attainment + 0.02, min_alone_slo);  // at (about) equal SLO
}

TEST(FleetWhatIf, EdgePlacementLowersTtftForDistantClients) {
  const FleetRun central = run_fleet_example("edge-central.json");
  const FleetRun edge = run_fleet_example("edge-placed.json");
  print("edge-central", central);
  print("edge-placed", edge);
  EXPECT_LT(edge.metrics.ttft.p50, central.metrics.ttft.p50);
  EXPECT_GT(edge.metrics.slo_attainment, central.metrics.slo_attainment);
}

}  // namespace
}  // namespace tidal::sim
