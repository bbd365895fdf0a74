// Role axes of a search space (prefill_replicas, prefill_tp, decode_replicas, decode_tp):
// candidate generation over a disaggregated scenario, bad values, and candidates evaluated end
// to end with both roles' layouts in the results, the table and results.jsonl.
#include <gtest/gtest.h>

#include "base/input_error.h"
#include "plan/candidate_eval.h"
#include "plan/plan_runner.h"
#include "plan/plan_table.h"
#include "plan/results_file.h"
#include "plan/search_space.h"
#include "tests/plan/plan_fixture.h"

namespace tidal::plan {
namespace {

using ojson = nlohmann::ordered_json;

// Llama-3-8B (32 heads) on H100: a prefill pool and a decode pool linked over InfiniBand.
nlohmann::json pd_scenario() {
  return nlohmann::json::parse(R"({
    "name": "plan-pd",
    "seed": 5,
    "workloads": [
      {"name": "chat", "slo_class": "interactive", "slo": {"ttft_s": 1.0, "tpot_s": 0.1},
       "generator": {"kind": "poisson", "rate": 4, "duration_s": 30,
                     "prompt": {"dist": "lognormal", "median": 1000, "sigma": 0.5, "max": 4000},
                     "output": {"dist": "lognormal", "median": 100, "sigma": 0.5, "max": 400}}}
    ],
    "fleet": {"pools": [
      {"name": "p", "role": "prefill", "model": "llama-3-8b", "gpu": "H100-SXM", "num_replicas": 1},
      {"name": "d", "role": "decode", "model": "llama-3-8b", "gpu": "H100-SXM", "num_replicas": 1}
    ]},
    "kv_transfer": {"links": [{"from": "p", "to": "d", "kind": "infiniband"}]},
    "output": {"trace_json": false}
  })");
}

BaseScenario pd_base() {
  return BaseScenario{pd_scenario(), "pd.json", ""};
}

std::string error_of(const std::string& space_text, const BaseScenario& base = pd_base()) {
  try {
    parse_search_space(ojson::parse(space_text), "space.json", base);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(PdSearch, RoleAxesSetTheirRolesPoolsWhicheverPoolIsVaried) {
  const SearchSpace space = parse_search_space(
      ojson::parse(
          R"({"dimensions": {"prefill_replicas": [1, 2], "decode_replicas": [1, 2, 3], "decode_tp": [1, 2]}})"),
      "space.json", pd_base());
  EXPECT_EQ(space.pool_name, "p");
  ASSERT_TRUE(space.prefill_pool && space.decode_pool);
  EXPECT_EQ(*space.prefill_pool, 0u);
  EXPECT_EQ(*space.decode_pool, 1u);
  ASSERT_EQ(space.dimensions.size(), 3u);
  EXPECT_EQ(space.dimensions[0].pool_index, 0u);
  EXPECT_EQ(space.dimensions[0].pool_key, "num_replicas");
  EXPECT_EQ(space.dimensions[2].pool_index, 1u);
  EXPECT_EQ(space.dimensions[2].pool_key, "tp");

  const std::vector<Candidate> c = enumerate_candidates(space);
  ASSERT_EQ(c.size(), 12u);
  EXPECT_EQ(c[0].config.dump(), R"({"prefill_replicas":1,"decode_replicas":1,"decode_tp":1})");
  EXPECT_EQ(c[1].config.dump(), R"({"prefill_replicas":1,"decode_replicas":1,"decode_tp":2})");
  EXPECT_EQ(c[11].config.dump(), R"({"prefill_replicas":2,"decode_replicas":3,"decode_tp":2})");

  nlohmann::json scenario = pd_scenario();
  apply_candidate(scenario, space, c[11].config);
  const nlohmann::json& pools = scenario.at("fleet").at("pools");
  EXPECT_EQ(pools[0].at("num_replicas"), 2);
  EXPECT_FALSE(pools[0].contains("tp"));
  EXPECT_EQ(pools[1].at("num_replicas"), 3);
  EXPECT_EQ(pools[1].at("tp"), 2);
  EXPECT_FALSE(pools[1].contains("decode_tp"));
  EXPECT_EQ(pool_overrides(space, 1, c[11].config).dump(), R"({"num_replicas":3,"tp":2})");
}

TEST(PdSearch, BadRoleAxesAreErrorsOfTheSpace) {
  EXPECT_EQ(error_of(R"({"dimensions": {"prefill_tp": [2, "four"]}})"),
            "space.json: dimensions.prefill_tp[1]: expected an integer >= 1, got \"four\"");
  EXPECT_EQ(error_of(R"({"dimensions": {"decode_replicas": [0, 1]}})"),
            "space.json: dimensions.decode_replicas[0]: expected an integer >= 1, got 0");
  EXPECT_EQ(error_of(R"({"dimensions": {"decode_replicas": [1, 1]}})"),
            "space.json: dimensions.decode_replicas[1]: 1 repeats");
  EXPECT_EQ(error_of(R"({"dimensions": {"decode_tp": []}})"),
            "space.json: dimensions.decode_tp: expected a non-empty array of values");
  EXPECT_EQ(error_of(R"({"dimensions": {"tp": [1, 2], "prefill_tp": [1]}})"),
            "space.json: dimensions.prefill_tp: sets tp of pool \"p\" as dimensions.tp does");
  EXPECT_EQ(error_of(R"({"dimensions": {"prefill_replicas": [1]}})",
                     BaseScenario{testing::small_scenario(), "s.json", ""}),
            "space.json: dimensions.prefill_replicas: needs exactly one pool of role \"prefill\" "
            "in s.json, found 0");
}

TEST(PdSearch, DisaggregatedCandidatesAreEvaluatedWithBothRoles) {
  const ScratchFolder scratch(testing::kScratch, "pd_search");
  const std::filesystem::path& dir = scratch.path();
  PlanOptions o;
  o.scenario_path = testing::write_json(dir / "pd.json", pd_scenario());
  // (nlohmann::json sorts keys: decode_tp, then prefill_replicas, varying fastest.)
  o.space_path = testing::write_json(
      dir / "space.json",
      nlohmann::json::parse(
          R"({"dimensions": {"prefill_replicas": [1, 2], "decode_tp": [1, 3]}})"));
  o.slo = {"p99_ttft<=1s"};
  o.out_dir = (dir / "out").string();
  o.num_threads = 2;
  o.progress = false;
  const PlanRun run = run_plan(o);
  ASSERT_EQ(run.outcome.results.size(), 4u);
  std::vector<CandidateResult> r(4);  // [num_candidates] by candidate index
  for (const CandidateResult& c : run.outcome.results) {
    ASSERT_TRUE(c.roles.has_value()) << c.name;
    r.at(static_cast<size_t>(c.index)) = c;
  }

  // Index 1: decode TP 1, 2 prefill replicas at TP 1.
  EXPECT_NE(r[1].status, "invalid");
  EXPECT_EQ(r[1].roles->prefill.num_replicas, 2);
  EXPECT_EQ(r[1].roles->decode.tp, 1);
  EXPECT_EQ(r[1].num_gpus, 3);
  EXPECT_EQ(r[1].name, "3xH100-SXM 2P-tp1 1D-tp1 bf16");
  EXPECT_EQ(r[0].num_gpus, 2);
  EXPECT_LE(*r[1].p99_ttft_s, *r[0].p99_ttft_s);  // more prefill replicas never queue longer

  // Decode TP 3 does not divide Llama-3-8B's 32 heads: invalid, with the loader's message and
  // the candidate's own layout in its name.
  for (size_t i : {2u, 3u}) {
    EXPECT_EQ(r[i].status, "invalid");
    EXPECT_NE(r[i].reason.find("fleet.pools[1].tp: 3 does not divide num_heads 32"),
              std::string::npos)
        << r[i].reason;
    EXPECT_EQ(r[i].roles->decode.tp, 3);
  }
  EXPECT_EQ(r[3].name, "5xH100-SXM 2P-tp1 1D-tp3 bf16");

  const std::string table = plan_table_text(run.outcome);
  EXPECT_NE(table.find("P rep  P TP  D rep  D TP"), std::string::npos) << table;
  EXPECT_NE(plan_winner_text(run.header, run.outcome)
                .find("(prefill 1 replica TP 1, decode 1 replica TP 1, bf16)"),
            std::string::npos);

  // results.jsonl keeps both roles: a resumed run reads them back unchanged.
  const CandidateResult back = result_from_json(result_to_json(r[1], "fp"), "line");
  ASSERT_TRUE(back.roles.has_value());
  EXPECT_EQ(result_to_json(back, "fp").dump(), result_to_json(r[1], "fp").dump());
  const PlanRun resumed = run_plan(o);
  EXPECT_EQ(resumed.num_resumed, 4);
  EXPECT_EQ(plan_table_text(resumed.outcome), table);
}

}  // namespace
}  // namespace tidal::plan
