// Speculative decoding by workload: the eagle3 method's published figure and acceptance rates by
// slo_class (speculative.acceptance_by_class) reaching each sequence's step.
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <string>

#include "base/input_error.h"
#include "fleet_test_util.h"
#include "sim/replica.h"
#include "sim/spec_acceptance.h"
#include "sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::FleetRun;
using testing::run_fleet_example;
using testing::run_fleet_scenario;

// A one-pool scenario: one Poisson workload per class in `classes`, the pool speculating with
// `speculative`.
nlohmann::json scenario_json(const nlohmann::json& speculative,
                             const std::vector<std::string>& classes = {"default"}) {
  nlohmann::json workloads = nlohmann::json::array();
  for (const std::string& c : classes) {
    workloads.push_back({{"name", c},
                         {"slo_class", c},
                         {"generator", {{"kind", "poisson"}, {"rate", 1}, {"duration_s", 1}}}});
  }
  nlohmann::json pool = testing::h100_pool(1);
  pool["speculative"] = speculative;
  return {{"workloads", workloads}, {"fleet", {{"pools", {pool}}}}};
}

// The InputError message of scenario_json(speculative, classes); "" if none.
std::string load_error(const nlohmann::json& speculative,
                       const std::vector<std::string>& classes = {"default"}) {
  try {
    testing::scenario_from(scenario_json(speculative, classes));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// EAGLE-3's tau 6.13 (arXiv 2503.01840) at drafting depth 8 is alpha 0.9; k = 4 by default.
TEST(FleetSpecClass, Eagle3ResolvesWithItsPublishedAcceptance) {
  const Scenario scenario = testing::scenario_from(scenario_json({{"method", "eagle3"}}));
  const SpeculativeSpec& spec = scenario.pools.at(0).speculative;
  EXPECT_EQ(spec.method, "eagle3");
  EXPECT_EQ(spec.num_speculative_tokens, 4);
  EXPECT_DOUBLE_EQ(spec.acceptance_rate, 0.9);
  EXPECT_DOUBLE_EQ(spec.draft_cost_ratio, 0.05);
  EXPECT_NEAR(expected_tokens_per_step(spec.acceptance_rate, 8), 6.13, 0.01);
  EXPECT_EQ(scenario_to_json(scenario)["fleet"]["pools"][0]["speculative"]["method"], "eagle3");
}

// Three requests on one replica, each of its own class: "json" at rate 0, "chat" at 0.6 (both
// from acceptance_by_class), "free" at the eagle method's 0.8. Every step verifying k = 4 drafts
// emits exactly 1 token for json and, on average, (1 - alpha^5) / (1 - alpha) for the others.
TEST(FleetSpecClass, EachSequenceDrawsAtItsClassRate) {
  const Scenario scenario = testing::scenario_from(
      scenario_json({{"method", "eagle"}, {"acceptance_by_class", {{"json", 0.0}, {"chat", 0.6}}}},
                    {"chat", "free", "json"}));
  ASSERT_EQ(scenario.slo_classes.size(), 3u);  // sorted by name: chat, free, json
  Replica replica(0, 0, scenario.pools.at(0), 0, 7, nullptr, scenario.slo_classes);
  const std::vector<int32_t> request_class = {0, 1, 2};  // [num requests] request id -> class
  for (int64_t id = 0; id < 3; ++id) {
    Request r = testing::make_request(id, 0.0, 64, 6001);
    ASSERT_EQ(replica.scheduler().add_request(r, 0), sched::RejectReason::none);
  }
  std::array<int64_t, 3> num_steps{};   // [num requests] steps verifying 4 drafts
  std::array<int64_t, 3> num_tokens{};  // [num requests] tokens those steps emitted
  int64_t now = 0;
  for (int64_t duration = replica.plan_step(now); duration > 0; duration = replica.plan_step(now)) {
    const std::span<const sched::SeqOutput> outputs = replica.step_outputs(request_class);
    const sched::StepPlan& plan = replica.plan();
    for (size_t i = 0; i < plan.seqs.size(); ++i) {
      const sched::ScheduledSeq& seq = plan.seqs[i];
      if (!seq.samples || seq.num_spec_tokens != 4) continue;
      const auto k = static_cast<size_t>(seq.request_id);
      ++num_steps[k];
      num_tokens[k] += outputs[i].num_accepted_tokens;
      if (seq.request_id == 2) {
        ASSERT_EQ(outputs[i].num_accepted_tokens, 1);
      }
    }
    now += duration;
    replica.scheduler().update(outputs, now);
  }
  ASSERT_GT(num_steps[0], 1000);
  ASSERT_GT(num_steps[1], 1000);
  EXPECT_EQ(num_tokens[2], num_steps[2]);
  const auto mean = [&](size_t k) {
    return static_cast<double>(num_tokens[k]) / static_cast<double>(num_steps[k]);
  };
  EXPECT_NEAR(mean(0), expected_tokens_per_step(0.6, 4), 0.08);  // 2.31
  EXPECT_NEAR(mean(1), expected_tokens_per_step(0.8, 4), 0.08);  // 3.36
}

// examples/fleet/spec-eagle.json (one class, "interactive") with its pool's speculative spec
// changed by `change`.
FleetRun run_eagle_with(const std::function<void(SpeculativeSpec&)>& change) {
  Scenario scenario =
      load_scenario_file(std::string(TIDAL_SOURCE_DIR) + "/examples/fleet/spec-eagle.json");
  change(scenario.pools.at(0).speculative);
  return run_fleet_scenario(std::move(scenario));
}

// A class rate equal to the pool's draws the very same run; rate 0 makes every draft a cost.
TEST(FleetSpecClass, ClassRateReplacesThePoolsRate) {
  const FleetRun plain = run_fleet_example("spec-eagle.json");
  const FleetRun same = run_eagle_with([](SpeculativeSpec& spec) {
    spec.acceptance_by_class = {{"interactive", 0.8}};
  });
  ASSERT_GT(plain.metrics.num_finished, 10);
  EXPECT_DOUBLE_EQ(same.metrics.tpot.mean, plain.metrics.tpot.mean);
  EXPECT_DOUBLE_EQ(same.metrics.e2e.p99, plain.metrics.e2e.p99);
  const FleetRun rejected = run_eagle_with([](SpeculativeSpec& spec) {
    spec.acceptance_by_class = {{"interactive", 0.0}};
  });
  EXPECT_GT(rejected.metrics.tpot.mean, run_fleet_example("spec-off.json").metrics.tpot.mean);
  ASSERT_TRUE(rejected.metrics.fleet.spec_acceptance_rate.has_value());
  EXPECT_EQ(*rejected.metrics.fleet.spec_acceptance_rate, 0.0);
}

TEST(FleetSpecClass, BadClassRatesAreErrors) {
  const auto with_rates = [](const nlohmann::json& rates) {
    return load_error({{"method", "eagle3"}, {"acceptance_by_class", rates}}, {"chat", "json"});
  };
  EXPECT_EQ(with_rates({{"json", 1.0}}),
            "scenario.json: fleet.pools[0].speculative.acceptance_by_class.json: must be in "
            "[0, 1), got 1");
  EXPECT_EQ(with_rates({{"json", -0.25}}),
            "scenario.json: fleet.pools[0].speculative.acceptance_by_class.json: must be in "
            "[0, 1), got -0.25");
  EXPECT_EQ(with_rates({{"jsno", 0.5}}),
            "scenario.json: fleet.pools[0].speculative.acceptance_by_class.jsno: no workload has "
            "slo_class \"jsno\" (classes: chat, json)");
  EXPECT_NE(
      with_rates({{"json", "low"}}).find("fleet.pools[0].speculative.acceptance_by_class.json"),
      std::string::npos);
  EXPECT_NE(with_rates(0.5).find("fleet.pools[0].speculative.acceptance_by_class"),
            std::string::npos);
  EXPECT_EQ(with_rates(nlohmann::json::object()), "");
}

// Echoed when given (and reads back to the same rates); absent otherwise, as before.
TEST(FleetSpecClass, ClassRatesAreEchoedOnlyWhenGiven) {
  const nlohmann::json given = {{"method", "eagle3"}, {"acceptance_by_class", {{"json", 0.5}}}};
  const Scenario scenario = testing::scenario_from(scenario_json(given, {"chat", "json"}));
  const nlohmann::ordered_json echoed =
      scenario_to_json(scenario)["fleet"]["pools"][0]["speculative"];
  EXPECT_DOUBLE_EQ(echoed["acceptance_by_class"]["json"].get<double>(), 0.5);
  const Scenario again =
      testing::scenario_from(scenario_json(nlohmann::json::parse(echoed.dump()), {"chat", "json"}));
  EXPECT_EQ(again.pools.at(0).speculative.acceptance_by_class,
            scenario.pools.at(0).speculative.acceptance_by_class);
  const Scenario plain = testing::scenario_from(scenario_json({{"method", "eagle3"}}));
  EXPECT_FALSE(
      scenario_to_json(plain)["fleet"]["pools"][0]["speculative"].contains("acceptance_by_class"));
}

}  // namespace
}  // namespace tidal::sim
