// Egress (docs/fleet.md, "Egress"): bytes that cross priced links cost their egress_per_gb,
// along the lowest-latency path; the run's dollars, the timeline and summary.json carry them;
// scenarios without prices are unchanged; bad keys name their JSON path.
#include <gtest/gtest.h>

#include <sstream>

#include "fleet_test_util.h"
#include "sim/run_output.h"
#include "sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::h100_pool;
using testing::make_request;
using testing::run_fleet_scenario;
using testing::scenario_from;
using testing::TempDir;

// Client c reaches the GPU region g over an edge site e (10 + 10 ms) or a direct link (100 ms,
// never the shortest path).
nlohmann::json network(double c_e_per_gb, double e_g_per_gb, double direct_per_gb) {
  return {{"regions",
           {{{"name", "c"}, {"kind", "client"}},
            {{"name", "e"}, {"kind", "edge"}},
            {{"name", "g"}, {"kind", "gpu"}}}},
          {"links",
           {{{"from", "c"}, {"to", "e"}, {"latency_ms", 10}, {"egress_per_gb", c_e_per_gb}},
            {{"from", "e"}, {"to", "g"}, {"latency_ms", 10}, {"egress_per_gb", e_g_per_gb}},
            {{"from", "c"}, {"to", "g"}, {"latency_ms", 100}, {"egress_per_gb", direct_per_gb}}}},
          {"request_bytes_per_token", 4},
          {"response_bytes_per_token", 6},
          {"response_bytes_per_chunk", 100}};
}

// r0 sized by its tokens (1,000 prompt, 10 output); r1 by its own bytes (5,000 and 700, for 7
// output tokens).
nlohmann::json scenario_json(const TempDir& dir, const nlohmann::json& net) {
  Request sized = make_request(1, 0.5, 200, 7);
  sized.request_bytes = 5000;
  sized.response_bytes = 700;
  const std::string trace = dir.write_trace("t.jsonl", {make_request(0, 0.0, 1000, 10), sized});
  nlohmann::json pool = h100_pool(1);
  pool["region"] = "g";
  return {{"workloads", {{{"trace", {{"path", trace}}}, {"region", "c"}}}},
          {"fleet", {{"pools", {pool}}}},
          {"network", net}};
}

TEST(Egress, BytesOnTheShortestPathCostEachLinksPrice) {
  const TempDir dir("egress_exact");
  testing::FleetRun run = run_fleet_scenario(
      scenario_from(scenario_json(dir, network(0.05, 0.02, 1.0)), dir.path().string()));
  ASSERT_TRUE(run.result.egress);
  const EgressReport& egress = *run.result.egress;
  for (const RequestRecord& rec : run.result.records) {
    ASSERT_EQ(rec.status, RequestStatus::finished);
  }
  // r0: 1,000 x 4 bytes in; 10 chunks of one token: 10 x 6 + 10 x 100 bytes back. r1: its own.
  const double request_bytes = 4000.0 + 5000.0;
  const double response_bytes = 1060.0 + 700.0;
  const EgressPoolTotals& pool = egress.by_pool[0];
  EXPECT_DOUBLE_EQ(pool.request.bytes, request_bytes);
  EXPECT_NEAR(pool.response.bytes, response_bytes, 1e-9);
  EXPECT_EQ(pool.kv.bytes, 0.0);
  const double bytes = request_bytes + response_bytes;
  ASSERT_EQ(egress.by_link.size(), 3U);
  EXPECT_NEAR(egress.by_link[0].bytes, bytes, 1e-9);
  EXPECT_NEAR(egress.by_link[1].bytes, bytes, 1e-9);
  EXPECT_EQ(egress.by_link[2].bytes, 0.0);  // the direct link is slower: nothing crosses it
  const double dollars = bytes * (0.05 + 0.02) / 1e9;
  EXPECT_NEAR(egress.dollars(), dollars, 1e-18);
  EXPECT_NEAR(egress.by_link[0].dollars, bytes * 0.05 / 1e9, 1e-18);

  // The run's dollars are the ledger's plus egress; the pool's likewise.
  const RunMetrics& m = run.metrics;
  ASSERT_TRUE(m.pools[0].egress_dollars);
  EXPECT_DOUBLE_EQ(*m.pools[0].egress_dollars, egress.dollars());
  EXPECT_DOUBLE_EQ(m.dollars, fleet::to_dollars(run.result.fleet.billing.fleet.total) + dollars);
  // The timeline's intervals add up to the total.
  double timeline_dollars = 0.0;
  for (const TimelineRow& row : run.result.timeline) timeline_dollars += row.egress_dollars;
  EXPECT_NEAR(timeline_dollars, egress.dollars(), 1e-18);
  std::ostringstream timeline;
  write_timeline_csv(run.result, timeline);
  EXPECT_NE(timeline.str().find(",kv_transfers_mean,egress_dollars\n"), std::string::npos);

  const nlohmann::ordered_json summary = summary_json(run.scenario, run.result, m);
  const auto& costs = summary["costs"];
  EXPECT_DOUBLE_EQ(costs["egress"]["dollars"].get<double>(), egress.dollars());
  EXPECT_DOUBLE_EQ(costs["egress"]["request"]["bytes"].get<double>(), request_bytes);
  EXPECT_EQ(costs["egress"]["links"][2]["from"], "c");
  EXPECT_EQ(costs["egress"]["links"][2]["bytes"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(costs["pools"][0]["egress_dollars"].get<double>(), egress.dollars());
  // The echo carries the prices and loads again as the same network.
  const auto& echo = summary["scenario"]["network"];
  EXPECT_EQ(echo["links"][0]["egress_per_gb"].get<double>(), 0.05);
  EXPECT_EQ(echo["response_bytes_per_chunk"].get<double>(), 100.0);
  const Scenario again = parse_scenario(nlohmann::json::parse(summary["scenario"].dump()),
                                        "echo.json", dir.path().string());
  EXPECT_EQ(again.network->links[1].egress_per_gb, 0.02);
  EXPECT_EQ(again.network->wire.response_bytes_per_token, 6.0);
}

TEST(Egress, UnpricedLinksLeaveEveryOutputAsBefore) {
  const TempDir dir("egress_unpriced");
  nlohmann::json plain = scenario_json(dir, network(0.0, 0.0, 0.0));
  // The network as scenarios wrote it before egress existed.
  nlohmann::json& links = plain["network"]["links"];
  for (auto& link : links) link.erase("egress_per_gb");
  for (const char* key :
       {"request_bytes_per_token", "response_bytes_per_token", "response_bytes_per_chunk"}) {
    plain["network"].erase(key);
  }
  testing::FleetRun before = run_fleet_scenario(scenario_from(plain, dir.path().string()));
  testing::FleetRun zero = run_fleet_scenario(
      scenario_from(scenario_json(dir, network(0.0, 0.0, 0.0)), dir.path().string()));
  EXPECT_FALSE(before.result.egress);
  EXPECT_FALSE(zero.result.egress);
  const nlohmann::ordered_json summary =
      summary_json(before.scenario, before.result, before.metrics);
  EXPECT_FALSE(summary["costs"].contains("egress"));
  EXPECT_FALSE(summary["costs"]["pools"][0].contains("egress_dollars"));
  EXPECT_FALSE(summary["scenario"]["network"]["links"][0].contains("egress_per_gb"));
  // Zero prices are no prices: the same summary byte for byte.
  EXPECT_EQ(summary.dump(), summary_json(zero.scenario, zero.result, zero.metrics).dump());
  std::ostringstream timeline;
  write_timeline_csv(before.result, timeline);
  EXPECT_EQ(timeline.str().find("egress"), std::string::npos);
}

TEST(Egress, KvTransferLinksBillTheBytesTheyCarry) {
  auto pool = [](const std::string& name, const std::string& role) {
    return nlohmann::json{{"name", name}, {"model", "llama-3-8b"}, {"gpu", "H100-SXM"},
                          {"role", role}, {"num_replicas", 1},     {"prefix_caching", false}};
  };
  const nlohmann::json j = {
      {"seed", 5},
      {"workloads",
       {{{"generator",
          {{"kind", "poisson"},
           {"rate", 4},
           {"duration_s", 10},
           {"prompt", {{"dist", "uniform"}, {"min", 500}, {"max", 2000}}},
           {"output", {{"dist", "uniform"}, {"min", 2}, {"max", 50}}}}}}}},
      {"fleet", {{"pools", {pool("p", "prefill"), pool("d", "decode")}}}},
      {"kv_transfer",
       {{"links", {{{"from", "p"}, {"to", "d"}, {"kind", "ethernet"}, {"egress_per_gb", 0.09}}}}}}};
  const testing::FleetRun run = run_fleet_scenario(scenario_from(j));
  ASSERT_TRUE(run.result.egress);
  double transferred = 0.0;
  for (const HandoffRecord& h : run.result.handoffs) transferred += h.transfer_bytes;
  ASSERT_GT(transferred, 0.0);
  const EgressReport& egress = *run.result.egress;
  EXPECT_NEAR(egress.by_kv_link[0].bytes, transferred, transferred * 1e-12);
  EXPECT_NEAR(egress.by_pool[0].kv.dollars, transferred * 0.09 / 1e9, 1e-15);
  EXPECT_EQ(egress.by_pool[1].dollars(), 0.0);  // the decode pool sent no KV
  // No network: nothing else is metered.
  EXPECT_EQ(egress.by_pool[0].request.bytes, 0.0);
  EXPECT_TRUE(egress.by_link.empty());
  EXPECT_NEAR(run.metrics.pools[0].egress_dollars.value(), egress.dollars(), 1e-18);
}

TEST(Egress, BadPricesAndSizesNameTheirPath) {
  const TempDir dir("egress_errors");
  nlohmann::json j = scenario_json(dir, network(-0.01, 0.0, 0.0));
  const std::string base = dir.path().string();
  EXPECT_NE(testing::scenario_error(j, base).find("network.links[0].egress_per_gb"),
            std::string::npos)
      << testing::scenario_error(j, base);
  j = scenario_json(dir, network(0.0, 2e6, 0.0));
  EXPECT_NE(testing::scenario_error(j, base).find(
                "network.links[1].egress_per_gb: must be at most 1e+06 dollars per GB"),
            std::string::npos)
      << testing::scenario_error(j, base);
  j = scenario_json(dir, network(0.0, 0.0, 0.0));
  j["network"]["response_bytes_per_chunk"] = 2e6;
  EXPECT_NE(testing::scenario_error(j, base).find(
                "network.response_bytes_per_chunk: must be at most 1e+06 bytes"),
            std::string::npos)
      << testing::scenario_error(j, base);
  j["network"]["response_bytes_per_chunk"] = "lots";
  EXPECT_NE(testing::scenario_error(j, base).find("network.response_bytes_per_chunk"),
            std::string::npos)
      << testing::scenario_error(j, base);
}

}  // namespace
}  // namespace tidal::sim
