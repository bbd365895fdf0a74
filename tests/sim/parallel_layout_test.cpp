// A pool's `ep` and `attention_dp` keys: read, checked against the model, echoed, and what they
// change in the pool (GPUs per replica, KV blocks, the SGLang preset's sequence limit).
#include <gtest/gtest.h>

#include <string>

#include "base/input_error.h"
#include "sim/scenario.h"
#include "tests/sim/sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::load_one_pool;
using testing::one_pool_error;

TEST(ParallelLayout, KeysReadAndEchoed) {
  const Scenario s = load_one_pool("mixtral-8x7b", R"(, "tp": 2, "attention_dp": 4, "ep": 8)");
  const PoolSpec& pool = s.pools[0];
  EXPECT_EQ(pool.deployment.tp, 2);
  EXPECT_EQ(pool.deployment.attention_dp, 4);
  EXPECT_EQ(pool.deployment.ep, 8);
  EXPECT_EQ(pool.deployment.num_gpus(), 8);
  EXPECT_EQ(pool.deployment.moe_tp(), 1);
  EXPECT_EQ(pool.num_gpus(), 8);
  EXPECT_EQ(pool.kv.num_gpu_blocks, 4 * pool.memory.num_kv_blocks_per_rank);
  const auto echo = scenario_to_json(s)["fleet"]["pools"][0];
  EXPECT_EQ(echo["ep"], 8);
  EXPECT_EQ(echo["attention_dp"], 4);
  // The echo loads again to the same layout.
  const Scenario again = load_scenario_text(scenario_to_json(s).dump(), "echo.json", "");
  EXPECT_EQ(again.pools[0].deployment.num_gpus(), 8);
}

TEST(ParallelLayout, DefaultsLeaveTheEchoAsBefore) {
  const Scenario s = load_one_pool("mixtral-8x7b", R"(, "tp": 2)");
  EXPECT_EQ(s.pools[0].deployment.ep, 1);
  EXPECT_EQ(s.pools[0].deployment.attention_dp, 1);
  EXPECT_EQ(s.pools[0].num_gpus(), 2);
  const auto echo = scenario_to_json(s)["fleet"]["pools"][0];
  EXPECT_FALSE(echo.contains("ep"));
  EXPECT_FALSE(echo.contains("attention_dp"));
}

TEST(ParallelLayout, BadLayoutsNameTheKey) {
  EXPECT_EQ(one_pool_error("mixtral-8x7b", R"(, "attention_dp": 0)"),
            "scenario.json: fleet.pools[0].attention_dp: must be >= 1, got 0");
  EXPECT_EQ(one_pool_error("mixtral-8x7b", R"(, "attention_dp": 6, "ep": 3)"),
            "scenario.json: fleet.pools[0].ep: 3 does not divide num_experts 8 of mixtral-8x7b");
  EXPECT_EQ(one_pool_error("llama-3-8b", R"(, "tp": 2, "ep": 2)"),
            "scenario.json: fleet.pools[0].ep: 2 needs an MoE model; llama-3-8b is dense");
  EXPECT_NE(one_pool_error("llama-3-8b", R"(, "attention_dp": 2)")
                .find("scenario.json: fleet.pools[0].attention_dp: 2 needs an MoE model"),
            std::string::npos);
  EXPECT_EQ(one_pool_error("mixtral-8x7b", R"(, "ep": "8")"),
            "scenario.json: fleet.pools[0].ep: expected an integer, got a string \"8\"");
  EXPECT_EQ(one_pool_error("mixtral-8x7b", R"(, "tp": 64, "attention_dp": 128)"),
            "scenario.json: fleet.pools[0].attention_dp: tp 64 x attention_dp 128 = 8192 GPUs per "
            "replica: must be <= 4096");
}

TEST(ParallelLayout, SglangSequenceLimitIsPerRank) {
  // SGLang sizes max_running_requests per DP rank from that rank's KV pool.
  const Scenario one = load_one_pool("mixtral-8x7b", R"(, "engine": "sglang", "tp": 2, "ep": 2)");
  const Scenario four =
      load_one_pool("mixtral-8x7b", R"(, "engine": "sglang", "tp": 2, "attention_dp": 4, "ep": 8)");
  const PoolSpec& a = one.pools[0];
  const PoolSpec& b = four.pools[0];
  EXPECT_EQ(b.scheduler.max_num_seqs % 4, 0);
  EXPECT_GE(b.scheduler.max_num_seqs, 4 * 2048);
  EXPECT_GE(b.scheduler.max_num_seqs, a.scheduler.max_num_seqs);
  // Given, the limit is the replica's (SGLang divides --max-running-requests by dp_size).
  const Scenario given = load_one_pool("mixtral-8x7b",
                                       R"(, "engine": "sglang", "tp": 2, "attention_dp": 4, "ep": 8,
                                  "scheduler": {"max_num_seqs": 512})");
  EXPECT_EQ(given.pools[0].scheduler.max_num_seqs, 512);
}

}  // namespace
}  // namespace tidal::sim
