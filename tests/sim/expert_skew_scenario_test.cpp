// A pool's `moe` key (expert_skew, expert_load): read into the deployment's expert load, echoed
// as written, and refused with the key's JSON path on dense models and bad values.
#include <gtest/gtest.h>

#include <string>

#include "base/input_error.h"
#include "sim/scenario.h"
#include "tests/sim/sim_test_util.h"

namespace tidal::sim {
namespace {

// Its pools run at tp 2.
Scenario load(const std::string& model, const std::string& pool_extra) {
  return testing::load_one_pool(model, R"(, "tp": 2)" + pool_extra);
}

std::string error_of(const std::string& model, const std::string& pool_extra) {
  return testing::one_pool_error(model, R"(, "tp": 2)" + pool_extra);
}

TEST(ExpertSkewScenario, SkewReadAndEchoed) {
  const Scenario s = load("mixtral-8x7b", R"(, "moe": {"expert_skew": 1.2})");
  const auto& shares = s.pools[0].deployment.expert_load.shares;
  ASSERT_EQ(shares.size(), 8u);
  EXPECT_GT(shares[0], shares[7]);
  const auto echo = scenario_to_json(s)["fleet"]["pools"][0];
  EXPECT_EQ(echo["moe"]["expert_skew"], 1.2);
  const Scenario again = load_scenario_text(scenario_to_json(s).dump(), "echo.json", "");
  EXPECT_EQ(again.pools[0].deployment.expert_load.shares, shares);
}

TEST(ExpertSkewScenario, SkewZeroAndNoKeyAreBalanced) {
  EXPECT_TRUE(load("mixtral-8x7b", R"(, "moe": {"expert_skew": 0})")
                  .pools[0]
                  .deployment.expert_load.balanced());
  const Scenario plain = load("mixtral-8x7b", "");
  EXPECT_TRUE(plain.pools[0].deployment.expert_load.balanced());
  EXPECT_FALSE(scenario_to_json(plain)["fleet"]["pools"][0].contains("moe"));
}

TEST(ExpertSkewScenario, ExplicitLoadIsNormalised) {
  const Scenario s = load("mixtral-8x7b", R"(, "moe": {"expert_load": [3, 1, 1, 1, 1, 1, 1, 1]})");
  const auto& shares = s.pools[0].deployment.expert_load.shares;
  ASSERT_EQ(shares.size(), 8u);
  EXPECT_DOUBLE_EQ(shares[0], 0.3);
  EXPECT_DOUBLE_EQ(shares[1], 0.1);
}

TEST(ExpertSkewScenario, BadValuesNameTheKey) {
  const std::string at = "scenario.json: fleet.pools[0].moe";
  EXPECT_EQ(error_of("llama-3-8b", R"(, "moe": {"expert_skew": 1})"),
            at + ": needs an MoE model; llama-3-8b is dense");
  EXPECT_EQ(error_of("mixtral-8x7b", R"(, "moe": {"expert_skew": -0.5})"),
            at + ".expert_skew: must be a finite number >= 0, got -0.5");
  EXPECT_EQ(error_of("mixtral-8x7b", R"(, "moe": {"expert_load": [1, 2, 3]})"),
            at + ".expert_load: has 3 loads; mixtral-8x7b has 8 routed experts");
  EXPECT_EQ(error_of("mixtral-8x7b", R"(, "moe": {"expert_load": [1, 1, 1, -1, 1, 1, 1, 1]})"),
            at + ".expert_load[3]: must be a finite number >= 0, got -1");
  EXPECT_EQ(error_of("mixtral-8x7b", R"(, "moe": {"expert_load": [0, 0, 0, 5, 0, 0, 0, 0]})"),
            at + ".expert_load: 1 experts have load > 0; mixtral-8x7b routes each token to 2, so "
                 "at least 2 must");
  EXPECT_EQ(error_of("mixtral-8x7b", R"(, "moe": {"expert_load": "hot"})"),
            at + ".expert_load: must be an array of 8 loads, one per routed expert of "
                 "mixtral-8x7b");
  EXPECT_EQ(error_of("mixtral-8x7b", R"(, "moe": {"expert_skew": 1, "expert_load": [1]})"),
            at + ": give exactly one of expert_skew and expert_load");
  EXPECT_EQ(error_of("mixtral-8x7b", R"(, "perf": {"kind": "profile", "profile": "p.json"},
                                         "moe": {"expert_skew": 1})"),
            at + ": not with \"perf\": {\"kind\": \"profile\"} (a profile's MoE times were "
                 "measured under its own routing)");
  EXPECT_EQ(error_of("mixtral-8x7b", R"(, "moe": {})"),
            at + ": give exactly one of expert_skew and expert_load");
  EXPECT_NE(
      error_of("mixtral-8x7b", R"(, "moe": {"expert_skew": 1, "skew": 2})").find(at + ".skew"),
      std::string::npos);
}

}  // namespace
}  // namespace tidal::sim
