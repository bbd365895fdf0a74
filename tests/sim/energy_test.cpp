// Energy and carbon of a run (docs/fleet.md, "Energy and carbon"): off unless asked, exact
// integration over a known run, carbon = kWh x intensity, regions over the `energy` object,
// the echo loading again, and bad keys naming their JSON path.
#include "sim/energy_summary.h"

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "sim/metrics.h"
#include "sim/run_output.h"
#include "sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::h100_pool;
using testing::make_request;
using testing::scenario_from;
using testing::TempDir;

// One Llama-3-8B replica on an H100 serving `requests` from a trace, with `extra` top-level keys.
nlohmann::json one_replica(const TempDir& dir, const std::vector<Request>& requests,
                           const nlohmann::json& extra) {
  nlohmann::json j = {
      {"workloads", {{{"trace", {{"path", dir.write_trace("t.jsonl", requests)}}}}}},
      {"fleet", {{"pools", {h100_pool(1)}}}}};
  for (const auto& [key, value] : extra.items()) j[key] = value;
  return j;
}

std::string error_of(const nlohmann::json& j, const TempDir& dir) {
  return testing::scenario_error(j, dir.path().string());
}

TEST(Energy, OffUnlessTheScenarioAsks) {
  const TempDir dir("energy_off");
  const Scenario s =
      scenario_from(one_replica(dir, {make_request(0, 0.0, 100, 4)}, {}), dir.path().string());
  EXPECT_FALSE(s.report_energy);
  RunResult r = run_scenario(s);
  const RunMetrics m = compute_metrics(s, r);
  const nlohmann::ordered_json summary = summary_json(s, r, m);
  EXPECT_FALSE(summary.contains("energy"));
  EXPECT_FALSE(summary["scenario"].contains("energy"));
}

TEST(Energy, AKnownRunIntegratesExactly) {
  // One prompt of 1,000 tokens and one output token at 0 s, one more at 30 s: two prefill
  // steps, the replica warm (idle between them) from 0 to the run's end.
  const TempDir dir("energy_exact");
  const Scenario s = scenario_from(
      one_replica(dir, {make_request(0, 0.0, 1000, 1), make_request(1, 30.0, 1000, 1)},
                  {{"energy",
                    {{"pue", 1.2},
                     {"carbon_intensity_g_per_kwh", 400},
                     {"electricity_price_per_kwh", 0.1}}}}),
      dir.path().string());
  ASSERT_TRUE(s.report_energy);
  RunResult r = run_scenario(s);
  const RunMetrics m = compute_metrics(s, r);
  ASSERT_EQ(r.replicas.size(), 1u);
  EXPECT_EQ(r.replicas[0].powered_ns, r.end_ns);  // warm from 0 to the end

  // Both steps price the same batch: utilisation u = max(MFU, MBU) of either, over their time.
  const double u = std::max(*m.pools[0].mfu, *m.pools[0].mbu);
  const double busy_s = static_cast<double>(r.replicas[0].busy_ns) / 1e9;
  EXPECT_NEAR(r.replicas[0].load.full_power_s, u * busy_s, 1e-12);
  const double end_s = static_cast<double>(r.end_ns) / 1e9;
  const double it_j = 105.0 * end_s + (700.0 - 105.0) * r.replicas[0].load.full_power_s;

  const EnergyReport e = compute_energy(s, r);
  EXPECT_DOUBLE_EQ(e.it.gpu_idle, 105.0 * end_s);
  EXPECT_DOUBLE_EQ(e.it.host, 0.0);
  EXPECT_DOUBLE_EQ(e.facility_joules, it_j * 1.2);
  const double kwh = it_j * 1.2 / 3.6e6;
  ASSERT_TRUE(e.kg_co2e);
  EXPECT_DOUBLE_EQ(*e.kg_co2e, kwh * 400.0 / 1000.0);
  EXPECT_DOUBLE_EQ(*e.dollars, kwh * 0.1);
  EXPECT_DOUBLE_EQ(*e.wh_per_request, kwh * 1000.0 / 2.0);
  EXPECT_DOUBLE_EQ(*e.kwh_per_1m_output_tokens, kwh / 2e-6);
  EXPECT_DOUBLE_EQ(*e.kwh_per_1m_tokens, kwh / 2002e-6);

  const nlohmann::ordered_json j = summary_json(s, r, m);
  ASSERT_TRUE(j.contains("energy"));
  EXPECT_DOUBLE_EQ(j["energy"]["kwh"].get<double>(), kwh);
  EXPECT_DOUBLE_EQ(j["energy"]["kg_co2e"].get<double>(), kwh * 0.4);
  EXPECT_EQ(j["energy"]["pools"][0]["gpu_max_w"], 700.0);
  EXPECT_EQ(j["scenario"]["energy"].dump(),
            R"({"pue":1.2,"carbon_intensity_g_per_kwh":400.0,"electricity_price_per_kwh":0.1})");
  // Deterministic: a second run writes the same section.
  RunResult again = run_scenario(s);
  EXPECT_EQ(summary_json(s, again, compute_metrics(s, again))["energy"].dump(), j["energy"].dump());
}

TEST(Energy, HostPowerAndGpusPerReplica) {
  // tp 2, a host of 2,000 W per 8-GPU node: a quarter of it per replica.
  const TempDir dir("energy_host");
  nlohmann::json j = one_replica(dir, {make_request(0, 0.0, 100, 2)}, {});
  j["fleet"]["pools"][0]["tp"] = 2;
  j["fleet"]["pools"][0]["energy"] = {{"host_power_w", 2000}, {"gpu_idle_w", 80}};
  const Scenario s = scenario_from(j, dir.path().string());
  ASSERT_TRUE(s.report_energy);  // a pool's energy object turns it on
  const RunResult r = run_scenario(s);
  const EnergyReport e = compute_energy(s, r);
  const double end_s = static_cast<double>(r.end_ns) / 1e9;
  EXPECT_DOUBLE_EQ(e.it.gpu_idle, 2.0 * 80.0 * end_s);
  EXPECT_DOUBLE_EQ(e.it.host, 2000.0 * 2.0 / 8.0 * end_s);
  EXPECT_DOUBLE_EQ(e.it.gpu_dynamic, 2.0 * 620.0 * r.replicas[0].load.full_power_s);
  EXPECT_FALSE(e.kg_co2e);  // no intensity anywhere: no carbon figure, not zero
  EXPECT_EQ(e.pools_without_carbon_intensity, std::vector<std::string>{"pool0"});
  EXPECT_FALSE(e.dollars);
  EXPECT_DOUBLE_EQ(s.pools[0].power.site.pue, 1.0);
}

// Two GPU regions of different grids and one client region; a pool in each.
nlohmann::json two_regions(const TempDir& dir, const nlohmann::json& east_energy) {
  nlohmann::json east = {{"name", "east"}, {"kind", "gpu"}};
  for (const auto& [key, value] : east_energy.items()) east[key] = value;
  nlohmann::json j =
      one_replica(dir, {make_request(0, 0.0, 100, 2)},
                  {{"network",
                    {{"regions",
                      {{{"name", "users"}, {"kind", "client"}},
                       east,
                       {{"name", "north"}, {"kind", "gpu"}, {"carbon_intensity_g_per_kwh", 30}}}},
                     {"links",
                      {{{"from", "users"}, {"to", "east"}, {"latency_ms", 10}},
                       {{"from", "users"}, {"to", "north"}, {"latency_ms", 20}}}}}}});
  j["workloads"][0]["region"] = "users";
  nlohmann::json pool_north = h100_pool(1);
  pool_north["name"] = "north";
  pool_north["region"] = "north";
  j["fleet"]["pools"][0]["name"] = "east";
  j["fleet"]["pools"][0]["region"] = "east";
  j["fleet"]["pools"].push_back(pool_north);
  return j;
}

TEST(Energy, RegionsOverrideTheEnergyObject) {
  const TempDir dir("energy_regions");
  nlohmann::json j = two_regions(dir, {{"carbon_intensity_g_per_kwh", 600}, {"pue", 1.5}});
  j["energy"] = {{"pue", 1.1}, {"electricity_price_per_kwh", 0.2}};
  const Scenario s = scenario_from(j, dir.path().string());
  EXPECT_DOUBLE_EQ(s.pools[0].power.site.pue, 1.5);
  EXPECT_DOUBLE_EQ(*s.pools[0].power.site.carbon_intensity_g_per_kwh, 600.0);
  EXPECT_DOUBLE_EQ(*s.pools[0].power.site.electricity_price_per_kwh, 0.2);
  EXPECT_DOUBLE_EQ(s.pools[1].power.site.pue, 1.1);
  EXPECT_DOUBLE_EQ(*s.pools[1].power.site.carbon_intensity_g_per_kwh, 30.0);
  const RunResult r = run_scenario(s);
  const EnergyReport e = compute_energy(s, r);
  ASSERT_TRUE(e.kg_co2e);
  EXPECT_DOUBLE_EQ(*e.pools[0].kg_co2e, e.pools[0].facility_joules / 3.6e6 * 0.6);
  EXPECT_DOUBLE_EQ(*e.pools[1].kg_co2e, e.pools[1].facility_joules / 3.6e6 * 0.03);
  EXPECT_DOUBLE_EQ(*e.kg_co2e, *e.pools[0].kg_co2e + *e.pools[1].kg_co2e);

  // The echo loads again to the same figures.
  const Scenario echoed =
      scenario_from(nlohmann::json::parse(scenario_to_json(s).dump()), dir.path().string());
  EXPECT_TRUE(echoed.report_energy);
  EXPECT_DOUBLE_EQ(echoed.pools[0].power.site.pue, 1.5);
  EXPECT_DOUBLE_EQ(*echoed.pools[1].power.site.carbon_intensity_g_per_kwh, 30.0);
  EXPECT_DOUBLE_EQ(*echoed.pools[1].power.site.electricity_price_per_kwh, 0.2);
}

TEST(Energy, ARegionWithoutIntensityGivesNoFleetCarbon) {
  const TempDir dir("energy_missing");
  const Scenario s = scenario_from(two_regions(dir, nlohmann::json::object()), dir.path().string());
  ASSERT_TRUE(s.report_energy);  // a region's intensity turns it on
  const EnergyReport e = compute_energy(s, run_scenario(s));
  EXPECT_FALSE(e.pools[0].kg_co2e);
  EXPECT_TRUE(e.pools[1].kg_co2e);
  EXPECT_FALSE(e.kg_co2e);
  EXPECT_EQ(e.pools_without_carbon_intensity, std::vector<std::string>{"east"});
}

TEST(Energy, BadKeysNameTheirJsonPath) {
  const TempDir dir("energy_errors");
  const auto with = [&](const nlohmann::json& extra) {
    return one_replica(dir, {make_request(0, 0.0, 10, 1)}, extra);
  };
  EXPECT_EQ(error_of(with({{"energy", {{"pue", 0.8}}}}), dir),
            "scenario.json: energy.pue: must be between 1 and 10 (got 0.8)");
  EXPECT_EQ(error_of(with({{"energy", {{"carbon_intensity_g_per_kwh", -3}}}}), dir),
            "scenario.json: energy.carbon_intensity_g_per_kwh: must be between 0 and 10000 "
            "gCO2e/kWh (got -3)");
  EXPECT_NE(error_of(with({{"energy", {{"region", "x"}}}}), dir).find("energy.region"),
            std::string::npos);
  nlohmann::json bad_pool = with({});
  bad_pool["fleet"]["pools"][0]["energy"] = {{"gpu_max_w", -700}};
  EXPECT_EQ(error_of(bad_pool, dir),
            "scenario.json: fleet.pools[0].energy.gpu_max_w: must be between 0 and 1e+06 W (got "
            "-700)");
  nlohmann::json client = two_regions(dir, nlohmann::json::object());
  client["network"]["regions"][0]["pue"] = 1.2;
  EXPECT_NE(error_of(client, dir).find("network.regions[0]: a client region hosts no replicas"),
            std::string::npos);
  // An inline GPU without power figures is fine until energy is asked for.
  nlohmann::json lab = with({});
  lab["fleet"]["pools"][0]["gpu"] = {{"name", "lab"},
                                     {"memory_gib", 80},
                                     {"hbm_bandwidth_gb_per_s", 3350},
                                     {"flops_bf16_tflops", 989}};
  EXPECT_EQ(error_of(lab, dir), "no error");
  lab["energy"] = nlohmann::json::object();
  EXPECT_EQ(error_of(lab, dir),
            "scenario.json: fleet.pools[0].energy.gpu_max_w: missing: GPU \"lab\" has no power "
            "figures (power_max_w); give the pool's energy.gpu_max_w and gpu_idle_w");
}

// examples/energy: the directions its README states come out the right way round.
TEST(Energy, ExamplesEdgeSiteTradesEnergyAndDollarsForCarbon) {
  const auto report = [](const char* name) {
    const Scenario s =
        load_scenario_file(std::string(TIDAL_SOURCE_DIR) + "/examples/energy/" + name);
    return compute_energy(s, run_scenario(s));
  };
  const EnergyReport central = report("central.json");
  const EnergyReport placed = report("placed.json");
  EXPECT_GT(placed.facility_joules, central.facility_joules);
  EXPECT_GT(*placed.dollars, *central.dollars);
  EXPECT_LT(*placed.kg_co2e, *central.kg_co2e);
  EXPECT_GT(central.it.host, central.it.gpu_dynamic);  // a full-load host figure
}

}  // namespace
}  // namespace tidal::sim
