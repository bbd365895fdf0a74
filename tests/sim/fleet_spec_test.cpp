// Speculative decoding in the simulator: the acceptance model and its effect on TPOT at batch 1.
#include <gtest/gtest.h>

#include "fleet_test_util.h"
#include "sim/spec_acceptance.h"
#include "sim_test_util.h"
#include "traces/input_error.h"

namespace tidal::sim {
namespace {

using testing::run_fleet_example;

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

TEST(FleetSpec, BadSpeculativeKeysAreErrors) {
  nlohmann::json pool = testing::h100_pool(1);
  pool["speculative"] = {{"method", "medusa"}};
  const nlohmann::json j = {
      {"workloads", {{{"generator", {{"kind", "poisson"}, {"rate", 1}, {"duration_s", 1}}}}}},
      {"fleet", {{"pools", {pool}}}}};
  try {
    testing::scenario_from(j);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "scenario.json: fleet.pools[0].speculative.method: unknown method \"medusa\" "
              "(known: ngram, draft, eagle)");
  }
}

}  // namespace
}  // namespace tidal::sim
