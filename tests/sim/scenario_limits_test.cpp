// Hostile scenarios (issue 19, "Every bad input ends cleanly"): each is refused up front with
// an InputError naming the file and the JSON path, or runs in bounded memory and time.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "base/checked_time.h"
#include "base/input_error.h"
#include "sim/metrics.h"
#include "sim/scenario.h"
#include "sim/scenario_limits.h"
#include "sim/simulator.h"
#include "sim/workload_loader.h"
#include "tests/sim/sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::make_request;
using testing::TempDir;

// A minimal valid scenario: `workload_extra` spliced into the workload, `pool_extra` into the
// pool, `root_extra` into the root object.
std::string scenario_text(const std::string& pool_extra = "", const std::string& root_extra = "",
                          const std::string& workload_extra = "") {
  return R"({"workloads": [{"generator": {"kind": "poisson", "rate": 2, "duration_s": 10})" +
         workload_extra + R"(}],
             "fleet": {"pools": [{"model": "llama-3-8b", "gpu": "H100-SXM")" +
         pool_extra + "}]}" + root_extra + "}";
}

// The message of loading, then loading the workloads of and simulating, `text`.
std::string error_of(const std::string& text, const std::string& base_dir = "") {
  try {
    const Scenario s = load_scenario_text(text, "s.json", base_dir);
    simulate(s, load_workloads(s));
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ScenarioLimits, DuplicateKeysNameTheirPath) {
  EXPECT_EQ(error_of(R"({"name": "a", "name": "b"})"),
            "s.json: name: duplicate key (each key may appear once)");
  EXPECT_EQ(error_of(scenario_text(R"(, "tp": 1, "tp": 2)")),
            "s.json: fleet.pools[0].tp: duplicate key (each key may appear once)");
  EXPECT_EQ(error_of(R"({"workloads": [{}, {"generator": {"kind": "a", "kind": "b"}}]})"),
            "s.json: workloads[1].generator.kind: duplicate key (each key may appear once)");
  // The same key in two objects is fine.
  EXPECT_EQ(error_of(scenario_text("", R"(, "router": {"policy": "round_robin"})")), "(no error)");
}

TEST(ScenarioLimits, RouterKnobsOfAnotherPolicyAreErrors) {
  EXPECT_EQ(
      error_of(scenario_text("", R"(, "router": {"policy": "round_robin", "virtual_nodes": 8})")),
      "s.json: router.virtual_nodes: not a knob of router \"round_robin\"");
  EXPECT_EQ(error_of(scenario_text(
                "", R"(, "router": {"policy": "least_outstanding_requests", "load_factor": 2})")),
            "s.json: router.load_factor: not a knob of router \"least_outstanding_requests\"");
  EXPECT_EQ(
      error_of(scenario_text(
          "", R"(, "router": {"policy": "prefix_aware", "load_factor": 2, "virtual_nodes": 8})")),
      "(no error)");
  // The echo gives only the policy's knobs, so it loads again.
  const Scenario s = load_scenario_text(scenario_text(), "s.json", "");
  const nlohmann::ordered_json echo = scenario_to_json(s);
  EXPECT_FALSE(echo["router"].contains("virtual_nodes"));
  EXPECT_NO_THROW(parse_scenario(nlohmann::json::parse(echo.dump()), "echo.json", ""));
}

TEST(ScenarioLimits, ReplicasPerPoolAreBounded) {
  EXPECT_EQ(
      error_of(scenario_text(R"(, "num_replicas": 30000)")),
      "s.json: fleet.pools[0].num_replicas: must be at most 10000 replicas per pool, got 30000");
  EXPECT_EQ(error_of(scenario_text(
                R"(, "autoscaler": {"policy": "queue_depth", "max_replicas": 50000})")),
            "s.json: fleet.pools[0].autoscaler.max_replicas: must be between 0 and 10000 (got "
            "50000)");
}

// Pools of at most 10,000 replicas each still cannot add up past the fleet's limit.
TEST(ScenarioLimits, ReplicasPerFleetAreBounded) {
  std::string pools;
  for (int i = 0; i < 3; ++i) {
    pools += fmt::format(R"({}{{"name": "p{}", "model": "llama-3-8b", "gpu": "H100-SXM", )"
                         R"("num_replicas": 10000}})",
                         i == 0 ? "" : ", ", i);
  }
  EXPECT_EQ(error_of(R"({"workloads": [{"generator": {"kind": "poisson", "rate": 2, )"
                     R"("duration_s": 10}}], "fleet": {"pools": [)" +
                     pools + "]}}"),
            "s.json: fleet.pools[2]: the pools up to this one can hold 30000 replicas at once "
            "(num_replicas, or the autoscaler's max_replicas and schedule), above the limit of "
            "20000 per fleet");
}

TEST(ScenarioLimits, IntervalsAreBounded) {
  EXPECT_EQ(error_of(scenario_text("", R"(, "timeline_interval_s": 1e300)")),
            "s.json: timeline_interval_s: must be between 0.001 and 1e+09 s, got 1e+300");
  EXPECT_EQ(error_of(scenario_text("", R"(, "metrics": {"peak_bin_s": 1e-9})")),
            "s.json: metrics.peak_bin_s: must be between 0.001 and 1e+09 s, got 1e-09");
  EXPECT_EQ(error_of(scenario_text(
                R"(, "autoscaler": {"policy": "queue_depth", "evaluation_interval_s": 1e-9})")),
            "s.json: fleet.pools[0].autoscaler.evaluation_interval_s: must be at least 0.001 s "
            "(got 1e-09)");
}

TEST(ScenarioLimits, ArrivalsLateForTheIntervalsAreRefusedBeforeTheRun) {
  TempDir dir("late_arrival");
  dir.write_trace("t.jsonl", {make_request(0, 0.0, 10, 2), make_request(1, 1e9, 10, 2)});
  const std::string trace = R"({"workloads": [{"trace": {"path": "t.jsonl"}}],
      "fleet": {"pools": [{"model": "llama-3-8b", "gpu": "H100-SXM"}]}})";
  EXPECT_EQ(error_of(trace, dir.path().string()),
            "s.json: timeline_interval_s: 1 s makes 1000000000 intervals up to the last arrival "
            "at 1e+09 s, above the limit of 1000000 per run; give at least 1000 s");
  // With rows and peak bins of 10^4 s the same trace runs.
  const std::string coarse = R"({"workloads": [{"trace": {"path": "t.jsonl"}}],
      "timeline_interval_s": 1e4, "metrics": {"peak_bin_s": 1e4},
      "fleet": {"pools": [{"model": "llama-3-8b", "gpu": "H100-SXM"}]}})";
  EXPECT_EQ(error_of(coarse, dir.path().string()), "(no error)");
}

TEST(ScenarioLimits, TheEventLoopStopsAtTheLimits) {
  const Scenario s = load_scenario_text(scenario_text(), "s.json", "");
  EXPECT_NO_THROW(check_run_time(s, int64_t{2'000'000} * 1'000'000'000));
  try {
    check_run_time(s, int64_t{2'000'001} * 1'000'000'000);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "s.json: the run reached t = 2e+06 s with requests unfinished, past the limit of "
                 "2000000 intervals of 1 s (timeline_interval_s, metrics.peak_bin_s); does the "
                 "fleet ever serve them?");
  }
  try {
    check_run_time(s, base::kMaxSimulatedNs + 1);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "s.json: the run reached t = 4e+09 s, past the simulated-time limit of 4e+09 s");
  }
}

TEST(ScenarioLimits, ScaledArrivalsAndLengthsAreBounded) {
  EXPECT_EQ(error_of(scenario_text("", "", R"(, "start_s": 1e300)")),
            "s.json: workloads[0].start_s: must be at most 1e+09 s (the latest arrival), got "
            "1e+300");
  const std::string slow = error_of(scenario_text("", "", R"(, "time_scale": 1e300)"));
  EXPECT_EQ(slow.rfind("s.json: workloads[0]: request 0 arrives at ", 0), 0u) << slow;
  const std::string fast = error_of(scenario_text("", "", R"(, "rate_scale": 1e-300)"));
  EXPECT_EQ(fast.rfind("s.json: workloads[0]: request 0 arrives at ", 0), 0u) << fast;
  const std::string tokens = error_of(scenario_text("", "", R"(, "length_scale": 1e300)"));
  EXPECT_EQ(tokens.rfind("s.json: workloads[0].length_scale: request 0 would have ", 0), 0u)
      << tokens;
}

TEST(ScenarioLimits, NonsenseFleetFiguresAreRefused) {
  const std::string network = R"(, "network": {"regions": [{"name": "c", "kind": "client"},
      {"name": "g", "kind": "gpu"}], "links": [{"from": "c", "to": "g", "latency_ms": 1e300}]})";
  EXPECT_EQ(error_of(scenario_text(R"(, "region": "g")", network, R"(, "region": "c")")),
            "s.json: network.links[0].latency_ms: must be at most 1e+06 ms (got 1e+300)");
  EXPECT_EQ(
      error_of(scenario_text(R"(, "speculative": {"method": "draft", "draft_cost_ratio": 1e300})")),
      "s.json: fleet.pools[0].speculative.draft_cost_ratio: must be at most 10 target "
      "steps, got 1e+300");
  const std::string spot = error_of(scenario_text(
      R"(, "pricing": {"market": "spot"}, "spot": {"mean_time_between_interruptions_s": 1})"));
  EXPECT_EQ(spot.rfind("s.json: fleet.pools[0].spot.mean_time_between_interruptions_s: 1 s is "
                       "shorter than notice_s plus the pool's cold start",
                       0),
            0u)
      << spot;
}

TEST(ScenarioLimits, PoolsAndWorkloadsNeedANonEmptyName) {
  EXPECT_EQ(error_of(scenario_text(R"(, "name": "")")),
            "s.json: fleet.pools[0].name: must not be empty (it names the pool in every output)");
  EXPECT_EQ(error_of(scenario_text("", "", R"(, "name": "")")),
            "s.json: workloads[0].name: must not be empty (it names the workload in every output)");
}

TEST(ScenarioLimits, SeedsStopAtTheLargestJsonInteger) {
  Scenario s = load_scenario_text(scenario_text(), "s.json", "");
  try {
    s.set_seed(~uint64_t{0});  // what --seed -1 wraps to
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "seed: must be between 0 and 9223372036854775807, got 18446744073709551615");
  }
}

TEST(ScenarioLimits, TraceAndProfileFilesAreNamedByTheirKey) {
  TempDir dir("missing_files");
  const std::string missing = error_of(R"({"workloads": [{"trace": {"path": "none.jsonl"}}],
      "fleet": {"pools": [{"model": "llama-3-8b", "gpu": "H100-SXM"}]}})",
                                       dir.path().string());
  EXPECT_EQ(missing.rfind("s.json: workloads[0].trace.path: ", 0), 0u) << missing;
  std::ofstream(dir.path() / "header.csv") << "arrived_at,num_prefill_tokens,num_decode_tokens\n";
  EXPECT_EQ(error_of(R"({"workloads": [{"trace": {"path": "header.csv"}}],
      "fleet": {"pools": [{"model": "llama-3-8b", "gpu": "H100-SXM"}]}})",
                     dir.path().string()),
            "s.json: workloads[0].trace.path: header.csv: no requests (a header and no rows)");
  const std::string profile =
      error_of(scenario_text(R"(, "perf": {"kind": "profile", "profile": "none.json"})"),
               dir.path().string());
  EXPECT_EQ(profile.rfind("s.json: fleet.pools[0].perf.profile: ", 0), 0u) << profile;
}

// Peak-sized dollars are billed as the pool bills (period, minimum): a fixed pool on per-hour
// billing for a 10-second run saves nothing, rather than "-35900%".
TEST(ScenarioLimits, AFixedPoolSavesNothingOverPeakSizing) {
  const Scenario s = load_scenario_text(
      scenario_text(R"(, "num_replicas": 2, "pricing": {"billing_granularity": "per_hour"})"),
      "s.json", "");
  RunResult result = simulate(s, load_workloads(s));
  const RunMetrics m = compute_metrics(s, result);
  ASSERT_TRUE(m.fleet.peak_sized_savings.has_value());
  EXPECT_NEAR(*m.fleet.peak_sized_savings, 0.0, 1e-9);
}

}  // namespace
}  // namespace tidal::sim
