// Fleet policies in the full loop: class priority and max_inputs at the router, per-request
// token caps, head-of-line accounting, network latency in TTFT, and the resolved-scenario echo.
#include <gtest/gtest.h>

#include "base/input_error.h"
#include "fleet_test_util.h"
#include "sim/workload_loader.h"
#include "sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::h100_pool;
using testing::make_request;
using testing::run_fleet_scenario;
using testing::scenario_from;
using testing::TempDir;

nlohmann::json trace_workload(const std::string& file, const std::string& name,
                              const std::string& slo_class) {
  return {{"name", name}, {"trace", {{"path", file}}}, {"slo_class", slo_class}};
}

TEST(FleetPolicy, MaxInputsHoldsRequestsAtTheRouterAndClassPriorityOrdersThem) {
  TempDir dir("fleet_priority");
  // One replica taking one request at a time; a batch request arrives first, then while it
  // runs a second batch request and an interactive one queue at the router.
  const std::string batch = dir.write_trace(
      "batch.jsonl", {make_request(0, 0.0, 100, 50), make_request(1, 0.001, 100, 50)});
  const std::string chat = dir.write_trace("chat.jsonl", {make_request(0, 0.002, 100, 50)});
  nlohmann::json pool = h100_pool(1);
  pool["autoscaler"] = {{"policy", "target_concurrency"},
                        {"target_inputs", 1},
                        {"max_inputs", 1},
                        {"min_replicas", 1},
                        {"max_replicas", 1}};
  const Scenario s = scenario_from(
      {{"workloads",
        {trace_workload(batch, "batch", "batch"), trace_workload(chat, "chat", "interactive")}},
       {"fleet", {{"pools", {pool}}}},
       {"router", {{"class_priority", {"interactive", "batch"}}}},
       {"timeline_interval_s", 0.001}},
      dir.path().string());
  const auto run = run_fleet_scenario(s);
  ASSERT_EQ(run.metrics.num_finished, 3);
  const auto& rec = run.result.records;  // ids by arrival: 0 batch, 1 batch, 2 chat
  EXPECT_LT(rec[0].finish_ns, rec[2].first_scheduled_ns + 1);
  EXPECT_LT(rec[2].finish_ns, rec[1].first_scheduled_ns + 1);  // interactive overtook batch
  int64_t max_queued = 0;
  for (const TimelineRow& row : run.result.timeline) {
    max_queued = std::max(max_queued, row.num_queued_at_router);
  }
  EXPECT_GE(max_queued, 1);
}

TEST(FleetPolicy, TokenCapsCutOutputs) {
  TempDir dir("fleet_caps");
  const std::string file = dir.write_trace("t.jsonl", {make_request(0, 0.0, 100, 500)});
  nlohmann::json w = trace_workload(file, "w", "batch");
  w["max_output_tokens"] = 64;
  const auto run = run_fleet_scenario(scenario_from(
      {{"workloads", {w}}, {"fleet", {{"pools", {h100_pool(1)}}}}}, dir.path().string()));
  EXPECT_EQ(run.result.records[0].num_output_tokens_done, 64);
}

TEST(FleetPolicy, LongPrefillsStretchCoScheduledRequests) {
  TempDir dir("fleet_hol");
  // Short requests decode while a 6,000-token prompt arrives and is prefilled in one step.
  std::vector<Request> requests;
  for (int i = 0; i < 4; ++i) requests.push_back(make_request(i, 0.0, 64, 200));
  requests.push_back(make_request(4, 0.2, 6000, 10));
  const std::string file = dir.write_trace("t.jsonl", requests);
  nlohmann::json w = trace_workload(file, "w", "batch");
  const auto run = run_fleet_scenario(scenario_from({{"workloads", {w}},
                                                     {"fleet", {{"pools", {h100_pool(1)}}}},
                                                     {"metrics", {{"long_prefill_tokens", 2048}}}},
                                                    dir.path().string()));
  const auto& rec = run.result.records;
  double delayed = 0.0;
  for (int i = 0; i < 4; ++i) {
    EXPECT_GT(rec[static_cast<size_t>(i)].hol_delay_s, 0.0) << i;
    EXPECT_EQ(rec[static_cast<size_t>(i)].hol_caused_s, 0.0) << i;
    delayed += rec[static_cast<size_t>(i)].hol_delay_s;
  }
  EXPECT_EQ(rec[4].hol_delay_s, 0.0);
  EXPECT_NEAR(rec[4].hol_caused_s, delayed, 1e-9);  // who took the time, and from whom
  EXPECT_NEAR(run.metrics.fleet.hol_delay_s, delayed, 1e-9);
}

TEST(FleetPolicy, NetworkRoundTripAddsToTtftAndE2e) {
  TempDir dir("fleet_network");
  const std::string file = dir.write_trace("t.jsonl", {make_request(0, 0.0, 100, 20)});
  const nlohmann::json network = {
      {"regions", {{{"name", "c"}, {"kind", "client"}}, {{"name", "g"}, {"kind", "gpu"}}}},
      {"links", {{{"from", "c"}, {"to", "g"}, {"latency_ms", 40}}}}};
  nlohmann::json w = trace_workload(file, "w", "batch");
  nlohmann::json pool = h100_pool(1);
  const auto local = run_fleet_scenario(
      scenario_from({{"workloads", {w}}, {"fleet", {{"pools", {pool}}}}}, dir.path().string()));
  w["region"] = "c";
  pool["region"] = "g";
  const auto remote = run_fleet_scenario(
      scenario_from({{"workloads", {w}}, {"fleet", {{"pools", {pool}}}}, {"network", network}},
                    dir.path().string()));
  EXPECT_NEAR(remote.metrics.ttft.p50 - local.metrics.ttft.p50, 0.080, 1e-6);
  EXPECT_NEAR(remote.metrics.e2e.p50 - local.metrics.e2e.p50, 0.080, 1e-6);
  EXPECT_EQ(remote.result.records[0].network_ns, 40'000'000);
}

TEST(FleetPolicy, RegionErrorsNameThePath) {
  nlohmann::json pool = h100_pool(1);
  pool["region"] = "us";
  const nlohmann::json j = {
      {"workloads", {{{"generator", {{"kind", "poisson"}, {"rate", 1}, {"duration_s", 1}}}}}},
      {"fleet", {{"pools", {pool}}}}};
  try {
    scenario_from(j);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "scenario.json: fleet.pools[0].region: needs a scenario \"network\"");
  }
}

TEST(FleetPolicy, ResolvedScenarioEchoReloads) {
  for (const char* name :
       {"edge-placed.json", "spot.json", "spec-eagle.json", "burst-snapshot.json"}) {
    const Scenario s =
        load_scenario_file(std::string(TIDAL_SOURCE_DIR) + "/examples/fleet/" + name);
    const nlohmann::json echo = nlohmann::json::parse(scenario_to_json(s).dump());
    const Scenario again = scenario_from(echo, s.base_dir);
    EXPECT_EQ(scenario_to_json(again).dump(), scenario_to_json(s).dump()) << name;
  }
}

}  // namespace
}  // namespace tidal::sim
