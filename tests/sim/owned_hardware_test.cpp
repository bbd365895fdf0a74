// Owned hardware (docs/fleet.md, "Owned hardware"): a pool's `owned` replaces its rental by
// the amortization of every device it may run over the whole run plus its electricity, and
// bad keys name their JSON path.
#include <gtest/gtest.h>

#include "base/input_error.h"
#include "sim/energy_summary.h"
#include "sim/metrics.h"
#include "sim/run_output.h"
#include "sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::h100_pool;
using testing::make_request;
using testing::scenario_from;
using testing::TempDir;

// One Llama-3-8B pool on H100s serving two requests 30 s apart.
nlohmann::json owned_run(const TempDir& dir, const nlohmann::json& pool_keys) {
  nlohmann::json pool = h100_pool(1);
  for (const auto& [key, value] : pool_keys.items()) pool[key] = value;
  return {{"workloads",
           {{{"trace",
              {{"path", dir.write_trace("t.jsonl", {make_request(0, 0.0, 1000, 8),
                                                    make_request(1, 30.0, 1000, 8)})}}}}}},
          {"energy", {{"pue", 1.25}, {"electricity_price_per_kwh", 0.2}}},
          {"fleet", {{"pools", {pool}}}}};
}

std::string error_of(const nlohmann::json& j, const TempDir& dir) {
  return testing::scenario_error(j, dir.path().string());
}

TEST(OwnedHardware, DollarsAreAmortizationOverTheRunPlusElectricity) {
  const TempDir dir("owned_exact");
  // 2 replicas of 1 GPU at 30,000 $ over 3 years: 30000 / (3 x 8766) $ per GPU-hour.
  const Scenario s = scenario_from(
      owned_run(
          dir, {{"num_replicas", 2}, {"owned", {{"capex_dollars", 30000}, {"lifetime_years", 3}}}}),
      dir.path().string());
  ASSERT_TRUE(s.report_energy);
  RunResult r = run_scenario(s);
  const RunMetrics m = compute_metrics(s, r);
  const double per_gpu_hour = 30000.0 / (3.0 * 8766.0);
  const double hours = static_cast<double>(r.end_ns) / 1e9 / 3600.0;
  const PoolMetrics& pool = m.pools[0];
  ASSERT_TRUE(pool.owned_amortization_dollars);
  // Both devices for the whole run, used or not (the ledger rounds to micro-dollars).
  EXPECT_NEAR(*pool.owned_amortization_dollars, 2.0 * per_gpu_hour * hours, 2e-6);
  const EnergyReport e = compute_energy(s, r);
  const double electricity = e.facility_joules / 3.6e6 * 0.2;
  EXPECT_DOUBLE_EQ(*pool.owned_electricity_dollars, electricity);
  EXPECT_GT(electricity, 0.0);
  EXPECT_DOUBLE_EQ(pool.dollars, *pool.owned_amortization_dollars + electricity);
  EXPECT_DOUBLE_EQ(m.dollars, pool.dollars);
  const nlohmann::ordered_json summary = summary_json(s, r, m);
  const auto& costs_pool = summary["costs"]["pools"][0];
  EXPECT_DOUBLE_EQ(costs_pool["owned"]["electricity_dollars"].get<double>(), electricity);
  EXPECT_EQ(summary["scenario"]["fleet"]["pools"][0]["owned"]["lifetime_years"], 3);
  // The echo loads again as the same owned pool.
  const Scenario again = parse_scenario(nlohmann::json::parse(summary["scenario"].dump()),
                                        "echo.json", dir.path().string());
  ASSERT_TRUE(again.pools[0].owned);
  EXPECT_EQ(again.pools[0].pool_pricing.reserved_replicas, 2);

  // An autoscaled owned pool owns its max_replicas devices, whatever it runs.
  const Scenario scaled =
      scenario_from(owned_run(dir, {{"autoscaler",
                                     {{"policy", "target_concurrency"},
                                      {"target_inputs", 4},
                                      {"min_replicas", 1},
                                      {"max_replicas", 3}}},
                                    {"owned", {{"capex_dollars", 30000}, {"lifetime_years", 3}}}}),
                    dir.path().string());
  RunResult scaled_run = run_scenario(scaled);
  const RunMetrics scaled_m = compute_metrics(scaled, scaled_run);
  const double scaled_hours = static_cast<double>(scaled_run.end_ns) / 1e9 / 3600.0;
  EXPECT_NEAR(*scaled_m.pools[0].owned_amortization_dollars, 3.0 * per_gpu_hour * scaled_hours,
              3e-6);
}

TEST(OwnedHardware, RentedPoolsAreUnchanged) {
  const TempDir dir("owned_off");
  const Scenario s = scenario_from(owned_run(dir, {}), dir.path().string());
  RunResult r = run_scenario(s);
  const RunMetrics m = compute_metrics(s, r);
  EXPECT_FALSE(m.pools[0].owned_amortization_dollars);
  EXPECT_FALSE(summary_json(s, r, m)["costs"]["pools"][0].contains("owned"));
}

TEST(OwnedHardware, BadKeysAreOneClearError) {
  const TempDir dir("owned_bad");
  EXPECT_NE(
      error_of(owned_run(dir, {{"owned", {{"capex_dollars", -5}, {"lifetime_years", 3}}}}), dir)
          .find("fleet.pools[0].owned.capex_dollars"),
      std::string::npos);
  EXPECT_NE(error_of(owned_run(dir, {{"owned", {{"capex_dollars", 5}}}}), dir)
                .find("fleet.pools[0].owned.lifetime_years"),
            std::string::npos);
  EXPECT_NE(error_of(owned_run(dir, {{"owned", {{"capex_dollars", 5}, {"lifetime_years", 3}}},
                                     {"price_per_gpu_hour", 1.0}}),
                     dir)
                .find("an owned pool pays no rental"),
            std::string::npos);
  nlohmann::json no_price =
      owned_run(dir, {{"owned", {{"capex_dollars", 5}, {"lifetime_years", 3}}}});
  no_price.erase("energy");
  EXPECT_NE(error_of(no_price, dir)
                .find("fleet.pools[0].owned: an owned pool pays for its "
                      "electricity"),
            std::string::npos)
      << error_of(no_price, dir);
  EXPECT_NE(
      error_of(owned_run(dir, {{"owned",
                                {{"capex_dollars", 5}, {"lifetime_years", 3}, {"power_w", 60}}}}),
               dir)
          .find("power_w"),
      std::string::npos);
}

}  // namespace
}  // namespace tidal::sim
