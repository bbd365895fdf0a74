// A pool's `pp` and `pp_link` keys: read, checked, echoed, what they change in the pool (GPUs per
// replica, KV blocks, the step model) and a run of a pipelined pool where every request finishes.
#include <gtest/gtest.h>

#include <string>

#include "base/input_error.h"
#include "sim/scenario.h"
#include "sim/simulator.h"

namespace tidal::sim {
namespace {

std::string scenario_text(const std::string& pool_extra) {
  return R"({"workloads": [{"generator": {"kind": "poisson", "rate": 4, "duration_s": 20,
               "prompt": 512, "output": 64}}],
             "fleet": {"pools": [{"model": "llama-3-70b", "gpu": "H100-SXM")" +
         pool_extra + "}]}}";
}

Scenario load(const std::string& pool_extra) {
  return load_scenario_text(scenario_text(pool_extra), "scenario.json", "");
}

std::string error_of(const std::string& pool_extra) {
  try {
    load(pool_extra);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(PipelineLayout, KeysReadResolvedAndEchoed) {
  const Scenario s = load(R"(, "tp": 4, "pp": 2)");
  const PoolSpec& pool = s.pools[0];
  EXPECT_EQ(pool.deployment.pp, 2);
  EXPECT_EQ(pool.deployment.num_gpus(), 8);
  EXPECT_EQ(pool.num_gpus(), 8);
  // Eight GPUs fit one node: NVLink between the stages.
  EXPECT_EQ(pool.pp_link_kind, fleet::LinkKind::nvlink);
  EXPECT_DOUBLE_EQ(pool.deployment.pp_link_gb_per_s, 450.0);
  const auto echo = scenario_to_json(s)["fleet"]["pools"][0];
  EXPECT_EQ(echo["pp"], 2);
  EXPECT_EQ(echo["pp_link"]["kind"], "nvlink");
  const Scenario again = load_scenario_text(scenario_to_json(s).dump(), "echo.json", "");
  EXPECT_EQ(again.pools[0].deployment.pp, 2);
  EXPECT_EQ(again.pools[0].kv.num_gpu_blocks, pool.kv.num_gpu_blocks);

  // Sixteen GPUs span two nodes: InfiniBand by default; a link object overrides its kind's values.
  EXPECT_EQ(load(R"(, "tp": 8, "pp": 2)").pools[0].pp_link_kind, fleet::LinkKind::infiniband);
  const Scenario given =
      load(R"(, "tp": 8, "pp": 2, "pp_link": {"kind": "roce", "gb_per_s_per_gpu": 25})");
  EXPECT_EQ(given.pools[0].pp_link_kind, fleet::LinkKind::roce);
  EXPECT_DOUBLE_EQ(given.pools[0].deployment.pp_link_gb_per_s, 25.0);
  EXPECT_EQ(load(R"(, "tp": 4, "pp": 2, "pp_link": "ethernet")").pools[0].pp_link_kind,
            fleet::LinkKind::ethernet);
}

TEST(PipelineLayout, WithoutPpTheEchoIsAsBefore) {
  const Scenario s = load(R"(, "tp": 4)");
  EXPECT_EQ(s.pools[0].deployment.pp, 1);
  const auto echo = scenario_to_json(s)["fleet"]["pools"][0];
  EXPECT_FALSE(echo.contains("pp"));
  EXPECT_FALSE(echo.contains("pp_link"));
}

TEST(PipelineLayout, StagesHoldMoreKvThanOneStage) {
  // Two stages of tp 4 hold the 70B's layers on 8 GPUs: more than twice the blocks of tp 4 alone.
  const Scenario one = load(R"(, "tp": 4)");
  const Scenario two = load(R"(, "tp": 4, "pp": 2)");
  EXPECT_GT(two.pools[0].kv.num_gpu_blocks, 2 * one.pools[0].kv.num_gpu_blocks);
}

TEST(PipelineLayout, BadKeysNameTheKey) {
  EXPECT_EQ(error_of(R"(, "pp": 0)"), "scenario.json: fleet.pools[0].pp: must be >= 1, got 0");
  EXPECT_EQ(error_of(R"(, "pp": 81)"),
            "scenario.json: fleet.pools[0].pp: 81 stages for the 80 layers of llama-3-70b: at most "
            "one stage per layer");
  EXPECT_EQ(error_of(R"(, "tp": 8, "pp": 1024)"),
            "scenario.json: fleet.pools[0].pp: 8 GPUs per stage x pp 1024 = 8192 GPUs per replica: "
            "must be <= 4096");
  EXPECT_EQ(error_of(R"(, "tp": 4, "pp": 2, "pp_link": "pigeon")"),
            "scenario.json: fleet.pools[0].pp_link: unknown link kind \"pigeon\" (nvlink, "
            "infiniband, roce, ethernet)");
  EXPECT_EQ(error_of(R"(, "tp": 4, "pp": 2, "pp_link": {"kind": "nvlink", "gb_per_s_per_gpu": 0})"),
            "scenario.json: fleet.pools[0].pp_link.gb_per_s_per_gpu: must be > 0, got 0");
  EXPECT_NE(error_of(R"(, "tp": 4, "pp": 2, "pp_link": {"bandwidth": 1})").find("bandwidth"),
            std::string::npos);
  EXPECT_EQ(error_of(R"(, "tp": 4, "pp": 2, "pp_link": 3)"),
            "scenario.json: fleet.pools[0].pp_link: must be a link kind name or {kind, "
            "gb_per_s_per_gpu, latency_ms}");
}

TEST(PipelineLayout, APipelinedPoolServesEveryRequestOnceAndReruns) {
  const Scenario s = load(R"(, "tp": 4, "pp": 2, "num_replicas": 1)");
  const RunResult a = run_scenario(s);
  const RunResult b = run_scenario(s);
  ASSERT_GT(a.records.size(), 40u);
  for (size_t i = 0; i < a.records.size(); ++i) {
    const RequestRecord& r = a.records[i];
    EXPECT_GE(r.first_token_ns, 0) << i;
    EXPECT_EQ(r.num_output_tokens_done, 64) << i;
    EXPECT_EQ(r.finish_ns, b.records[i].finish_ns) << i;
  }
}

}  // namespace
}  // namespace tidal::sim
