// Search spaces: validation against the scenario's pool, cartesian enumeration order,
// candidate scenarios with overrides and catalog pricing.
#include <gtest/gtest.h>

#include "plan/candidate_eval.h"
#include "plan/search_space.h"
#include "sim/perf/gpu_catalog.h"
#include "tests/plan/plan_fixture.h"
#include "traces/input_error.h"

namespace tidal::plan {
namespace {

using ojson = nlohmann::ordered_json;

sim::Scenario base() {
  return sim::parse_scenario(testing::small_scenario(), "s.json", "");
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
  EXPECT_EQ(
      error_of(R"({"dimensions": {"pricing": ["reserved"]}})"),
      "space.json: dimensions.pricing[0]: expected \"on_demand\" or \"spot\", got \"reserved\"");
  EXPECT_EQ(error_of(R"({"dimensions": {"scheduler": ["x"]}})"),
            "space.json: dimensions.scheduler: names an object; search one of its keys (e.g. "
            "scheduler.<key>)");
  EXPECT_EQ(error_of(R"({"dimensions": {}, "capacity": {"tolerance": 0}})"),
            "space.json: capacity.tolerance: expected a number > 0, got 0");
  const std::string unknown = error_of(R"({"dimensions": {"tpp": [1]}})");
  EXPECT_TRUE(
      unknown.starts_with("space.json: dimensions.tpp: not a key of pool \"gpus\" (known: "
                          "pricing, name, model, gpu, tp,"))
      << unknown;
  EXPECT_NE(unknown.find("scheduler.max_num_seqs"), std::string::npos);
}

TEST(SearchSpace, CandidateScenarioAppliesOverridesAndCatalogPrices) {
  PlanContext context;
  context.scenario_json = testing::small_scenario();
  context.scenario_file = "s.json";
  context.space = parse_search_space(
      ojson::parse(
          R"({"dimensions": {"gpu": ["A100-80GB"], "scheduler.max_num_batched_tokens": [4096], "pricing": ["spot"]}})"),
      "space.json", base());
  EXPECT_TRUE(context.space.catalog_pricing);
  const std::vector<Candidate> c = enumerate_candidates(context.space);
  const nlohmann::json j = candidate_scenario_json(context, c[0], 2.0);
  const nlohmann::json& pool = j["fleet"]["pools"][0];
  EXPECT_EQ(pool["gpu"], "A100-80GB");
  EXPECT_EQ(pool["scheduler"]["max_num_batched_tokens"], 4096);
  EXPECT_EQ(pool["scheduler"]["max_num_seqs"], 128);  // untouched keys stay
  EXPECT_DOUBLE_EQ(pool["price_per_gpu_hour"].get<double>(),
                   perf::find_gpu("A100-80GB", "gpu").price_spot_per_h);
  EXPECT_FALSE(pool.contains("pricing"));
  EXPECT_DOUBLE_EQ(j["workloads"][0]["rate_scale"].get<double>(), 2.0);
  // Ids are stable and differ between configs.
  EXPECT_EQ(candidate_id("f", c[0].config), candidate_id("f", c[0].config));
  EXPECT_NE(candidate_id("f", c[0].config), candidate_id("g", c[0].config));
  EXPECT_EQ(candidate_id("f", c[0].config).size(), 16u);
}

}  // namespace
}  // namespace tidal::plan
