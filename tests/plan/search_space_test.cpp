// Search spaces: validation against the scenario's pool, cartesian enumeration order,
// candidate scenarios with overrides.
#include <gtest/gtest.h>

#include "base/input_error.h"
#include "plan/candidate_eval.h"
#include "plan/search_space.h"
#include "tests/plan/plan_fixture.h"

namespace tidal::plan {
namespace {

using ojson = nlohmann::ordered_json;

BaseScenario base() {
  return BaseScenario{testing::small_scenario(), "s.json", ""};
}

std::string error_of(const std::string& space_text) {
  try {
    parse_search_space(ojson::parse(space_text), "space.json", base());
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SearchSpace, EnumeratesTheCartesianProductLastDimensionFastest) {
  const SearchSpace space = parse_search_space(
      ojson::parse(
          R"({"dimensions": {"tp": [1, 2], "scheduler.policy": ["static", "continuous", "chunked_prefill"]}})"),
      "space.json", base());
  EXPECT_EQ(space.pool_name, "gpus");
  const std::vector<Candidate> c = enumerate_candidates(space);
  ASSERT_EQ(c.size(), 6u);
  EXPECT_EQ(c[0].config.dump(), R"({"tp":1,"scheduler.policy":"static"})");
  EXPECT_EQ(c[1].config.dump(), R"({"tp":1,"scheduler.policy":"continuous"})");
  EXPECT_EQ(c[5].config.dump(), R"({"tp":2,"scheduler.policy":"chunked_prefill"})");
  EXPECT_EQ(c[4].index, 4);
  EXPECT_EQ(enumerate_candidates(
                parse_search_space(ojson::parse(R"({"dimensions": {}})"), "space.json", base()))
                .size(),
            1u);
}

TEST(SearchSpace, ErrorsNameTheFileAndPath) {
  EXPECT_EQ(error_of(R"({"dimensions": {"tp": []}})"),
            "space.json: dimensions.tp: expected a non-empty array of values");
  EXPECT_EQ(error_of(R"({"dimensions": {"tp": [1, 1]}})"),
            "space.json: dimensions.tp[1]: 1 repeats");
  EXPECT_EQ(error_of(R"({"pool": "cpu", "dimensions": {}})"),
            "space.json: pool: no pool \"cpu\" in s.json");
  EXPECT_EQ(error_of(R"({"dimensions": {}, "extra": 1})"),
            "space.json: extra: unknown key (known: pool, dimensions, capacity)");
  EXPECT_EQ(error_of(R"({"dimensions": {"pricing.markt": ["spot"]}})"),
            "space.json: dimensions.pricing.markt: not a key of pool \"gpus\" (s.json: "
            "fleet.pools[0].pricing.markt: unknown key)");
  EXPECT_EQ(error_of(R"({"dimensions": {"scheduler": ["x"]}})"),
            "space.json: dimensions.scheduler: names an object; search one of its keys (e.g. "
            "scheduler.<key>)");
  EXPECT_EQ(error_of(R"({"dimensions": {}, "capacity": {"tolerance": 0}})"),
            "space.json: capacity.tolerance: expected a number > 0, got 0");
  const std::string unknown = error_of(R"({"dimensions": {"tpp": [1]}})");
  EXPECT_TRUE(
      unknown.starts_with("space.json: dimensions.tpp: not a key of pool \"gpus\" (s.json: "
                          "fleet.pools[0].tpp: unknown key (known keys: name, model,"))
      << unknown;
  // A value the loader refuses is not an error of the space: that candidate is invalid.
  EXPECT_EQ(error_of(R"({"dimensions": {"tp": [3, 1]}})"), "(no error)");
}

TEST(SearchSpace, CandidateScenarioAppliesOverrides) {
  PlanContext context;
  context.scenario_json = testing::small_scenario();
  context.scenario_file = "s.json";
  context.space = parse_search_space(
      ojson::parse(
          R"({"dimensions": {"gpu": ["A100-80GB"], "scheduler.max_num_batched_tokens": [4096], "pricing.market": ["spot"], "autoscaler.policy": ["fixed"]}})"),
      "space.json", base());
  const std::vector<Candidate> c = enumerate_candidates(context.space);
  const nlohmann::json j = candidate_scenario_json(context, c[0], 2.0);
  const nlohmann::json& pool = j["fleet"]["pools"][0];
  EXPECT_EQ(pool["gpu"], "A100-80GB");
  EXPECT_EQ(pool["scheduler"]["max_num_batched_tokens"], 4096);
  EXPECT_EQ(pool["scheduler"]["max_num_seqs"], 128);  // untouched keys stay
  EXPECT_EQ(pool["pricing"], nlohmann::json({{"market", "spot"}}));
  EXPECT_EQ(pool["autoscaler"]["policy"], "fixed");
  EXPECT_DOUBLE_EQ(j["workloads"][0]["rate_scale"].get<double>(), 2.0);
  // Ids are stable and differ between configs.
  EXPECT_EQ(candidate_id("f", c[0].config), candidate_id("f", c[0].config));
  EXPECT_NE(candidate_id("f", c[0].config), candidate_id("g", c[0].config));
  EXPECT_EQ(candidate_id("f", c[0].config).size(), 16u);
}

}  // namespace
}  // namespace tidal::plan
