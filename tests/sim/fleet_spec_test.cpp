// Speculative decoding in the simulator: the acceptance and proposal models and their effect on
// TPOT at batch 1.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "base/input_error.h"
#include "fleet_test_util.h"
#include "sim/spec_acceptance.h"
#include "sim/spec_proposal.h"
#include "sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::FleetRun;
using testing::run_fleet_example;
using testing::run_fleet_scenario;

// examples/fleet/spec-eagle.json (prompts of 512 tokens, 256 output tokens) with its pool's
// speculative spec changed by `change`.
FleetRun run_eagle_with(const std::function<void(SpeculativeSpec&)>& change) {
  Scenario scenario =
      load_scenario_file(std::string(TIDAL_SOURCE_DIR) + "/examples/fleet/spec-eagle.json");
  change(scenario.pools.at(0).speculative);
  return run_fleet_scenario(std::move(scenario));
}

// The same with the drafter proposing at `proposal_rate` of the steps.
FleetRun run_eagle_proposing(double proposal_rate) {
  return run_eagle_with([&](SpeculativeSpec& spec) { spec.proposal_rate = proposal_rate; });
}

TEST(FleetSpec, AcceptanceIsATruncatedGeometric) {
  AcceptanceModel always(1.0, 1);
  AcceptanceModel never(0.0, 1);
  EXPECT_EQ(always.sample_accepted(4), 4);
  EXPECT_EQ(never.sample_accepted(4), 0);
  AcceptanceModel model(0.6, 42);
  int64_t total = 0;
  constexpr int kDraws = 200000;
  for (int i = 0; i < kDraws; ++i) total += model.sample_accepted(4);
  // E[accepted] = E[tokens per step] - 1.
  EXPECT_NEAR(static_cast<double>(total) / kDraws, expected_tokens_per_step(0.6, 4) - 1.0, 0.01);
  EXPECT_DOUBLE_EQ(expected_tokens_per_step(1.0, 4), 5.0);
  EXPECT_DOUBLE_EQ(expected_tokens_per_step(0.0, 4), 1.0);
  AcceptanceModel a(0.6, 7), b(0.6, 7);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.sample_accepted(4), b.sample_accepted(4));
}

TEST(FleetSpec, ProposalModelDrawsItsRateAndDrawsNothingAtOne) {
  ProposalModel at_one(3), fresh(3);
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(at_one.proposes(1.0));
  // Nothing drawn at 1: the stream continues where a fresh one starts.
  for (int i = 0; i < 100; ++i) EXPECT_EQ(at_one.proposes(0.4), fresh.proposes(0.4));
  ProposalModel model(42);
  int num_proposals = 0;
  constexpr int kDraws = 100000;
  for (int i = 0; i < kDraws; ++i) {
    EXPECT_FALSE(model.proposes(0.0));
    num_proposals += model.proposes(0.25) ? 1 : 0;
  }
  EXPECT_NEAR(static_cast<double>(num_proposals) / kDraws, 0.25, 0.005);
}

TEST(FleetSpec, ProposalRateZeroIsPlainDecodingAndPartialRatesLieBetween) {
  const FleetRun off = run_fleet_example("spec-off.json");
  const FleetRun never = run_eagle_proposing(0.0);
  const FleetRun half = run_eagle_proposing(0.5);
  const FleetRun always = run_eagle_proposing(1.0);
  ASSERT_GT(off.metrics.num_finished, 10);
  // Nothing drafted: every step is the plain decoding step, so the latencies are the same.
  EXPECT_EQ(never.metrics.num_finished, off.metrics.num_finished);
  EXPECT_DOUBLE_EQ(never.metrics.tpot.mean, off.metrics.tpot.mean);
  EXPECT_DOUBLE_EQ(never.metrics.e2e.mean, off.metrics.e2e.mean);
  EXPECT_LT(half.metrics.tpot.mean, off.metrics.tpot.mean);
  EXPECT_GT(half.metrics.tpot.mean, always.metrics.tpot.mean);
  // Rate 1 is the method's default: the example as written.
  EXPECT_DOUBLE_EQ(always.metrics.tpot.mean,
                   run_fleet_example("spec-eagle.json").metrics.tpot.mean);
}

TEST(FleetSpec, HighAcceptanceCutsTpotAtBatchOneAndZeroAcceptanceCostsMore) {
  const auto off = run_fleet_example("spec-off.json");
  const auto eagle = run_fleet_example("spec-eagle.json");
  const auto rejected = run_fleet_example("spec-draft-rejected.json");
  ASSERT_GT(off.metrics.num_finished, 10);
  EXPECT_EQ(eagle.metrics.num_finished, off.metrics.num_finished);
  EXPECT_LT(eagle.metrics.tpot.mean, 0.6 * off.metrics.tpot.mean);
  EXPECT_GT(rejected.metrics.tpot.mean, off.metrics.tpot.mean);
  ASSERT_TRUE(eagle.metrics.fleet.spec_acceptance_rate.has_value());
  EXPECT_NEAR(*eagle.metrics.fleet.spec_acceptance_rate,
              0.8 * (1.0 - 0.8 * 0.8 * 0.8 * 0.8) / (1.0 - 0.8) / 4.0, 0.05);
  EXPECT_EQ(*rejected.metrics.fleet.spec_acceptance_rate, 0.0);
}

// The same with rates by decode step.
FleetRun run_eagle_by_decode_step(const std::vector<SpecStepRates>& buckets) {
  return run_eagle_with([&](SpeculativeSpec& spec) { spec.by_decode_step = buckets; });
}

// One bucket from step 1 draws exactly what the flat rates draw; a bucket that starts past every
// sequence's last step never applies; buckets that turn the drafter on at step 4 land between
// never and always proposing.
TEST(FleetSpec, RatesByDecodeStepApplyFromTheirFirstStep) {
  const FleetRun flat_half = run_eagle_proposing(0.5);
  const FleetRun one_bucket = run_eagle_by_decode_step({{1, 0.5, 0.8}});
  EXPECT_EQ(one_bucket.metrics.num_finished, flat_half.metrics.num_finished);
  EXPECT_DOUBLE_EQ(one_bucket.metrics.tpot.mean, flat_half.metrics.tpot.mean);
  EXPECT_DOUBLE_EQ(one_bucket.metrics.e2e.p99, flat_half.metrics.e2e.p99);

  const FleetRun never = run_eagle_proposing(0.0);
  const FleetRun unreachable = run_eagle_by_decode_step({{1, 0.0, 0.8}, {1000000, 1.0, 0.8}});
  EXPECT_DOUBLE_EQ(unreachable.metrics.tpot.mean, never.metrics.tpot.mean);

  const FleetRun always = run_eagle_proposing(1.0);
  const FleetRun from_four = run_eagle_by_decode_step({{1, 0.0, 0.8}, {4, 1.0, 0.8}});
  EXPECT_LT(from_four.metrics.tpot.mean, never.metrics.tpot.mean);
  EXPECT_GT(from_four.metrics.tpot.mean, always.metrics.tpot.mean);
  // A zero acceptance rate from step 2 on: drafts still cost their verification, none pays off.
  const FleetRun rejected_later = run_eagle_by_decode_step({{1, 1.0, 0.8}, {2, 1.0, 0.0}});
  EXPECT_GT(rejected_later.metrics.tpot.mean, never.metrics.tpot.mean);
}

// The same with proposal rates by the context the drafts are verified at.
FleetRun run_eagle_by_context(const std::vector<SpecContextRate>& buckets) {
  return run_eagle_with([&](SpeculativeSpec& spec) { spec.proposal_by_context = buckets; });
}

// One bucket from 0 draws exactly what the flat rate draws; a bucket past every context never
// applies; proposing from context 640 on (half-way through every request's output) lands between
// never and always, and replaces the rates of by_decode_step.
TEST(FleetSpec, ProposalRatesByContextApplyFromTheirFirstContext) {
  const FleetRun flat_half = run_eagle_proposing(0.5);
  const FleetRun one_bucket = run_eagle_by_context({{0, 0.5}});
  EXPECT_EQ(one_bucket.metrics.num_finished, flat_half.metrics.num_finished);
  EXPECT_DOUBLE_EQ(one_bucket.metrics.tpot.mean, flat_half.metrics.tpot.mean);
  EXPECT_DOUBLE_EQ(one_bucket.metrics.e2e.p99, flat_half.metrics.e2e.p99);

  const FleetRun never = run_eagle_proposing(0.0);
  const FleetRun always = run_eagle_proposing(1.0);
  EXPECT_DOUBLE_EQ(run_eagle_by_context({{0, 0.0}, {1000000, 1.0}}).metrics.tpot.mean,
                   never.metrics.tpot.mean);
  const FleetRun from_640 = run_eagle_by_context({{0, 0.0}, {640, 1.0}});
  EXPECT_LT(from_640.metrics.tpot.mean, never.metrics.tpot.mean);
  EXPECT_GT(from_640.metrics.tpot.mean, always.metrics.tpot.mean);

  SpeculativeSpec spec;
  spec.proposal_rate = 0.9;
  spec.by_decode_step = {{1, std::nullopt, 0.5}, {4, std::nullopt, 0.7}};
  EXPECT_DOUBLE_EQ(spec.proposal_rate_at(5, 700), 0.9);  // no rates by context: the flat one
  spec.proposal_by_context = {{0, 0.1}, {640, 0.6}};
  EXPECT_DOUBLE_EQ(spec.proposal_rate_at(5, 639), 0.1);
  EXPECT_DOUBLE_EQ(spec.proposal_rate_at(1, 640), 0.6);
  EXPECT_DOUBLE_EQ(spec.acceptance_rate_at(5), 0.7);
}

// Host drafting (an n-gram lookup per running sequence) lengthens every step that carries a
// sequence with context, drafting or not: with nothing proposed, each decode step at batch 1 is
// the plain one plus the lookup.
TEST(FleetSpec, HostDraftingLengthensEveryDecodeStep) {
  const FleetRun never = run_eagle_proposing(0.0);
  const FleetRun looked_up = run_eagle_with([](SpeculativeSpec& spec) {
    spec.proposal_rate = 0.0;
    spec.draft_seconds_per_seq = 1e-3;
    spec.draft_seconds_per_context_token = 1e-6;
  });
  ASSERT_EQ(looked_up.metrics.num_finished, never.metrics.num_finished);
  // At least 1 ms + context x 1 us more per output token after the first.
  EXPECT_GT(looked_up.metrics.tpot.mean, never.metrics.tpot.mean + 1e-3);
  // The prefill of a fresh prompt (context 0) is not looked up: TTFT grows only by waiting.
  EXPECT_GE(looked_up.metrics.ttft.mean, never.metrics.ttft.mean);
}

// The InputError message of a one-pool scenario whose pool has `speculative`; "" if none.
std::string speculative_error(const nlohmann::json& speculative) {
  nlohmann::json pool = testing::h100_pool(1);
  pool["speculative"] = speculative;
  const nlohmann::json j = {
      {"workloads", {{{"generator", {{"kind", "poisson"}, {"rate", 1}, {"duration_s", 1}}}}}},
      {"fleet", {{"pools", {pool}}}}};
  try {
    testing::scenario_from(j);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(FleetSpec, BadSpeculativeKeysAreErrors) {
  EXPECT_EQ(speculative_error({{"method", "medusa"}}),
            "scenario.json: fleet.pools[0].speculative.method: unknown method \"medusa\" "
            "(known: ngram, draft, eagle, eagle3)");
  EXPECT_EQ(speculative_error({{"method", "ngram"}, {"proposal_rate", 1.5}}),
            "scenario.json: fleet.pools[0].speculative.proposal_rate: must be in [0, 1], got 1.5");
  EXPECT_NE(speculative_error({{"method", "ngram"}, {"draft_seconds_per_seq", -1e-6}})
                .find("fleet.pools[0].speculative.draft_seconds_per_seq"),
            std::string::npos);
}

TEST(FleetSpec, BadRatesByDecodeStepAreErrors) {
  const auto with_buckets = [](const nlohmann::json& buckets) {
    return speculative_error({{"method", "ngram"}, {"by_decode_step", buckets}});
  };
  EXPECT_EQ(with_buckets(nlohmann::json::array()),
            "scenario.json: fleet.pools[0].speculative.by_decode_step: must be a non-empty array "
            "of {first_step, proposal_rate, acceptance_rate}");
  EXPECT_EQ(with_buckets({{{"first_step", 2}, {"proposal_rate", 0.5}, {"acceptance_rate", 0.5}}}),
            "scenario.json: fleet.pools[0].speculative.by_decode_step[0].first_step: the first "
            "bucket must start at step 1");
  EXPECT_EQ(with_buckets({{{"first_step", 1}, {"proposal_rate", 0.5}, {"acceptance_rate", 0.5}},
                          {{"first_step", 1}, {"proposal_rate", 0.5}, {"acceptance_rate", 0.5}}}),
            "scenario.json: fleet.pools[0].speculative.by_decode_step[1].first_step: must be "
            "greater than the previous bucket's 1");
  EXPECT_EQ(with_buckets({{{"first_step", 1}, {"proposal_rate", 0.5}}}),
            "scenario.json: fleet.pools[0].speculative.by_decode_step[0].acceptance_rate: missing "
            "(required)");
  EXPECT_EQ(with_buckets({{{"first_step", 1}, {"proposal_rate", 0.5}, {"acceptance_rate", 2}}}),
            "scenario.json: fleet.pools[0].speculative.by_decode_step[0].acceptance_rate: must be "
            "in [0, 1], got 2");
  EXPECT_NE(
      with_buckets(
          {{{"first_step", 1}, {"proposal_rate", 0.5}, {"acceptance_rate", 0.5}, {"rate", 1}}})
          .find("by_decode_step[0].rate"),
      std::string::npos);
}

TEST(FleetSpec, BadProposalRatesByContextAreErrors) {
  const auto with_buckets = [](const nlohmann::json& buckets) {
    return speculative_error({{"method", "ngram"}, {"proposal_by_context", buckets}});
  };
  EXPECT_EQ(with_buckets(nlohmann::json::object()),
            "scenario.json: fleet.pools[0].speculative.proposal_by_context: must be a non-empty "
            "array of {first_context_tokens, proposal_rate}");
  EXPECT_EQ(with_buckets({{{"first_context_tokens", 16}, {"proposal_rate", 0.5}}}),
            "scenario.json: fleet.pools[0].speculative.proposal_by_context[0]."
            "first_context_tokens: the first bucket must start at 0");
  EXPECT_EQ(with_buckets({{{"first_context_tokens", 0}, {"proposal_rate", 0.5}},
                          {{"first_context_tokens", 0}, {"proposal_rate", 0.5}}}),
            "scenario.json: fleet.pools[0].speculative.proposal_by_context[1]."
            "first_context_tokens: must be greater than the previous bucket's 0");
  EXPECT_EQ(with_buckets({{{"first_context_tokens", 0}}}),
            "scenario.json: fleet.pools[0].speculative.proposal_by_context[0].proposal_rate: "
            "missing (required)");
  EXPECT_EQ(with_buckets({{{"first_context_tokens", 0}, {"proposal_rate", -0.5}}}),
            "scenario.json: fleet.pools[0].speculative.proposal_by_context[0].proposal_rate: must "
            "be in [0, 1], got -0.5");
  const nlohmann::json one = {{{"first_context_tokens", 0}, {"proposal_rate", 0.5}}};
  EXPECT_EQ(speculative_error(
                {{"method", "ngram"}, {"proposal_rate", 0.5}, {"proposal_by_context", one}}),
            "scenario.json: fleet.pools[0].speculative.proposal_rate: not with "
            "proposal_by_context (the proposal rates are by context)");
  EXPECT_EQ(
      speculative_error({{"method", "ngram"},
                         {"by_decode_step",
                          {{{"first_step", 1}, {"acceptance_rate", 0.5}},
                           {{"first_step", 2}, {"proposal_rate", 0.5}, {"acceptance_rate", 0.5}}}},
                         {"proposal_by_context", one}}),
      "scenario.json: fleet.pools[0].speculative.by_decode_step[1].proposal_rate: not with "
      "proposal_by_context (the proposal rates are by context)");
}

// With half the requests accepting at rate 1 and the others never, TPOT lies between all
// accepting and none; the share is echoed and must be in (0, 1].
TEST(FleetSpec, AcceptingShareSplitsRequestsIntoAcceptingAndNot) {
  const auto run_with = [](double acceptance_rate, double accepting_share) {
    return run_eagle_with([&](SpeculativeSpec& spec) {
      spec.acceptance_rate = acceptance_rate;
      spec.accepting_share = accepting_share;
    });
  };
  const FleetRun all = run_with(1.0, 1.0);
  const FleetRun half = run_with(1.0, 0.5);
  const FleetRun none = run_with(0.0, 1.0);
  EXPECT_LT(all.metrics.tpot.mean, half.metrics.tpot.mean);
  EXPECT_LT(half.metrics.tpot.mean, none.metrics.tpot.mean);
  ASSERT_TRUE(half.metrics.fleet.spec_acceptance_rate.has_value());
  // The non-accepting requests verify drafts at every step, the accepting ones at few: the
  // drafts' accepted share falls well below the requests' half.
  EXPECT_GT(*half.metrics.fleet.spec_acceptance_rate, 0.0);
  EXPECT_LT(*half.metrics.fleet.spec_acceptance_rate, 0.5);
  EXPECT_EQ(speculative_error({{"method", "ngram"}, {"accepting_share", 0}}),
            "scenario.json: fleet.pools[0].speculative.accepting_share: must be in (0, 1], got 0");
}

TEST(FleetSpec, RatesByDecodeStepAreEchoed) {
  nlohmann::json pool = testing::h100_pool(1);
  pool["speculative"] = {
      {"method", "ngram"},
      {"by_decode_step",
       {{{"first_step", 1}, {"proposal_rate", 0.25}, {"acceptance_rate", 0.5}},
        {{"first_step", 8}, {"proposal_rate", 0.75}, {"acceptance_rate", 0.9}}}}};
  const nlohmann::json j = {
      {"workloads", {{{"generator", {{"kind", "poisson"}, {"rate", 1}, {"duration_s", 1}}}}}},
      {"fleet", {{"pools", {pool}}}}};
  const Scenario scenario = testing::scenario_from(j);
  const SpeculativeSpec& spec = scenario.pools.at(0).speculative;
  EXPECT_DOUBLE_EQ(spec.proposal_rate_at(7, 0), 0.25);
  EXPECT_DOUBLE_EQ(spec.acceptance_rate_at(8), 0.9);
  const nlohmann::ordered_json echoed =
      scenario_to_json(scenario)["fleet"]["pools"][0]["speculative"]["by_decode_step"];
  ASSERT_EQ(echoed.size(), 2u);
  EXPECT_EQ(echoed[1]["first_step"], 8);
  EXPECT_DOUBLE_EQ(echoed[1]["proposal_rate"].get<double>(), 0.75);
}

// Rates by context are echoed without the flat proposal rate (not allowed beside them), and the
// echo reads back to the same rates.
TEST(FleetSpec, ProposalRatesByContextAreEchoedAndReadBack) {
  nlohmann::json pool = testing::h100_pool(1);
  pool["speculative"] = {{"method", "ngram"},
                         {"by_decode_step", {{{"first_step", 1}, {"acceptance_rate", 0.5}}}},
                         {"proposal_by_context",
                          {{{"first_context_tokens", 0}, {"proposal_rate", 0.125}},
                           {{"first_context_tokens", 128}, {"proposal_rate", 0.25}}}}};
  const auto scenario_with = [](const nlohmann::json& pool) {
    return testing::scenario_from(
        {{"workloads", {{{"generator", {{"kind", "poisson"}, {"rate", 1}, {"duration_s", 1}}}}}},
         {"fleet", {{"pools", {pool}}}}});
  };
  const nlohmann::ordered_json echoed =
      scenario_to_json(scenario_with(pool))["fleet"]["pools"][0]["speculative"];
  EXPECT_FALSE(echoed.contains("proposal_rate"));
  EXPECT_FALSE(echoed["by_decode_step"][0].contains("proposal_rate"));
  ASSERT_EQ(echoed["proposal_by_context"].size(), 2u);
  EXPECT_EQ(echoed["proposal_by_context"][1]["first_context_tokens"], 128);
  pool["speculative"] = nlohmann::json::parse(echoed.dump());
  const SpeculativeSpec again = scenario_with(pool).pools.at(0).speculative;
  EXPECT_DOUBLE_EQ(again.proposal_rate_at(1, 127), 0.125);
  EXPECT_DOUBLE_EQ(again.proposal_rate_at(1, 128), 0.25);
}

}  // namespace
}  // namespace tidal::sim
