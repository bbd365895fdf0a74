// The power model: board power at utilisation 0 and 1, a step's utilisation, exact integration
// over a replica's powered time and steps, pool and site keys with their errors.
#include "sim/fleet/energy_model.h"

#include <gtest/gtest.h>

#include "base/input_error.h"

namespace tidal::fleet {
namespace {

constexpr int64_t kNsPerS = 1'000'000'000;

template <typename Parse>
std::string error_of(const Parse& parse) {
  try {
    parse();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

PoolEnergySpec parse_pool(const nlohmann::json& json) {
  return parse_pool_energy_spec(json, "scenario.json", "fleet.pools[0].energy");
}

SiteEnergyKeys parse_site(const nlohmann::json& json) {
  perf::JsonObjectReader reader(json, "scenario.json", "energy");
  SiteEnergyKeys keys = read_site_energy_keys(reader);
  reader.finish();
  return keys;
}

TEST(EnergyModel, BoardPowerIsIdleAtZeroAndMaxAtOne) {
  const GpuPower h100{105.0, 700.0};
  EXPECT_DOUBLE_EQ(gpu_power_w(h100, 0.0), 105.0);
  EXPECT_DOUBLE_EQ(gpu_power_w(h100, 1.0), 700.0);
  EXPECT_DOUBLE_EQ(gpu_power_w(h100, 0.5), 402.5);
  EXPECT_DOUBLE_EQ(gpu_power_w(h100, -0.1), 105.0);  // clamped
  EXPECT_DOUBLE_EQ(gpu_power_w(h100, 1.5), 700.0);
}

TEST(EnergyModel, StepUtilisationIsTheLargerOfMfuAndMbu) {
  // 2 s on a GPU of 1e15 FLOP/s and 4e12 B/s: MFU 0.25, MBU 0.5.
  EXPECT_DOUBLE_EQ(step_utilisation(0.5e15, 4e12, 1e15, 4e12, 2.0), 0.5);
  EXPECT_DOUBLE_EQ(step_utilisation(1.8e15, 4e12, 1e15, 4e12, 2.0), 0.9);
  EXPECT_DOUBLE_EQ(step_utilisation(9e15, 0.0, 1e15, 4e12, 2.0), 1.0);  // clamped
  EXPECT_DOUBLE_EQ(step_utilisation(1e15, 4e12, 0.0, 0.0, 2.0), 0.0);   // no peaks
  EXPECT_DOUBLE_EQ(step_utilisation(1e15, 4e12, 1e15, 4e12, 0.0), 0.0);
}

TEST(EnergyModel, CatalogGpusCarrySourcedPower) {
  const perf::GpuSpec& h100 = perf::find_gpu("H100-SXM", "test");
  EXPECT_DOUBLE_EQ(h100.power_max_w, 700.0);
  EXPECT_DOUBLE_EQ(h100.power_idle_w, 105.0);
  EXPECT_DOUBLE_EQ(perf::find_gpu("L4", "test").power_max_w, 72.0);
  EXPECT_DOUBLE_EQ(perf::find_gpu("A100-80GB", "test").power_max_w, 400.0);
  EXPECT_DOUBLE_EQ(perf::find_gpu("H200", "test").power_max_w, 700.0);
  EXPECT_DOUBLE_EQ(perf::find_gpu("B200", "test").power_max_w, 1000.0);
  for (const std::string& name : perf::gpu_names()) {
    SCOPED_TRACE(name);
    const perf::GpuSpec& gpu = perf::find_gpu(name, "test");
    EXPECT_GT(gpu.power_idle_w, 0.0);
    EXPECT_LT(gpu.power_idle_w, gpu.power_max_w);
    EXPECT_NE(gpu.sources.at("power_idle_w").find("assumption"), std::string::npos);
    EXPECT_FALSE(gpu.sources.at("power_max_w").empty());
  }
}

TEST(EnergyModel, IdleReplicaIntegratesToIdlePowerTimesTimeTimesGpus) {
  const PoolPower pool =
      resolve_pool_power(parse_pool(nlohmann::json::object()), perf::find_gpu("H100-SXM", "test"),
                         2, SiteEnergy{}, "scenario.json", "fleet.pools[0]");
  const EnergyJoules e = replica_energy(pool, 3600 * kNsPerS, 0.0);
  EXPECT_DOUBLE_EQ(e.gpu_idle, 105.0 * 3600.0 * 2.0);
  EXPECT_DOUBLE_EQ(e.gpu_dynamic, 0.0);
  EXPECT_DOUBLE_EQ(e.host, 0.0);                   // host power defaults to 0: not counted
  EXPECT_DOUBLE_EQ(e.it() / kJoulesPerKwh, 0.21);  // 2 GPUs x 105 W x 1 h
}

TEST(EnergyModel, StepsAddPowerAboveIdleAndHostsShareTheirNode) {
  const PoolEnergySpec spec =
      parse_pool({{"host_power_w", 4000}, {"gpus_per_node", 8}, {"gpu_idle_w", 100}});
  const PoolPower pool = resolve_pool_power(spec, perf::find_gpu("H100-SXM", "test"), 2,
                                            SiteEnergy{1.25, std::nullopt, std::nullopt},
                                            "scenario.json", "fleet.pools[0]");
  EXPECT_DOUBLE_EQ(pool.gpu.idle_w, 100.0);  // the pool's figure over the catalog's
  EXPECT_DOUBLE_EQ(pool.gpu.max_w, 700.0);
  EXPECT_DOUBLE_EQ(pool.site.pue, 1.25);
  // 10 s powered, of which steps worth 4 s at full utilisation.
  const EnergyJoules e = replica_energy(pool, 10 * kNsPerS, 4.0);
  EXPECT_DOUBLE_EQ(e.gpu_idle, 2.0 * 100.0 * 10.0);
  EXPECT_DOUBLE_EQ(e.gpu_dynamic, 2.0 * 600.0 * 4.0);
  EXPECT_DOUBLE_EQ(e.host, 4000.0 * 2.0 / 8.0 * 10.0);  // a quarter of the node's host
}

TEST(EnergyModel, OnlyStatesHoldingGpusDrawPower) {
  EXPECT_FALSE(draws_power(LifecycleState::requested));
  EXPECT_FALSE(draws_power(LifecycleState::provisioning));
  EXPECT_TRUE(draws_power(LifecycleState::loading));
  EXPECT_TRUE(draws_power(LifecycleState::warm));
  EXPECT_TRUE(draws_power(LifecycleState::draining));
  EXPECT_FALSE(draws_power(LifecycleState::stopped));
}

TEST(EnergyModel, SiteKeysOverrideTheirBase) {
  const SiteEnergy base{1.1, 400.0, std::nullopt};
  const SiteEnergy site = parse_site({{"carbon_intensity_g_per_kwh", 30}}).over(base);
  EXPECT_DOUBLE_EQ(site.pue, 1.1);
  EXPECT_DOUBLE_EQ(*site.carbon_intensity_g_per_kwh, 30.0);
  EXPECT_FALSE(site.electricity_price_per_kwh);
  EXPECT_FALSE(parse_site(nlohmann::json::object()).any());
  EXPECT_TRUE(parse_site({{"pue", 1.0}}).any());
}

TEST(EnergyModel, BadKeysNameTheirJsonPath) {
  EXPECT_EQ(error_of([] {
              parse_pool({{"gpu_idle_w", -5}});
            }),
            "scenario.json: fleet.pools[0].energy.gpu_idle_w: must be between 0 and 1e+06 W "
            "(got -5)");
  EXPECT_EQ(error_of([] {
              parse_pool({{"host_power_w", -1}});
            }),
            "scenario.json: fleet.pools[0].energy.host_power_w: must be between 0 and 1e+06 W "
            "(got -1)");
  EXPECT_EQ(error_of([] {
              parse_pool({{"gpu_max_w", 0}});
            }),
            "scenario.json: fleet.pools[0].energy.gpu_max_w: must be > 0");
  EXPECT_EQ(error_of([] {
              parse_pool({{"gpu_idle_w", 300}, {"gpu_max_w", 200}});
            }),
            "scenario.json: fleet.pools[0].energy.gpu_idle_w: must be <= gpu_max_w (200 W), got "
            "300 W");
  EXPECT_NE(error_of([] {
              parse_pool({{"gpus_per_node", 0}});
            }).find("fleet.pools[0].energy.gpus_per_node"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_pool({{"host_w", 1}});
            }).find("fleet.pools[0].energy.host_w"),
            std::string::npos);
  EXPECT_EQ(error_of([] {
              parse_site({{"pue", 0.9}});
            }),
            "scenario.json: energy.pue: must be between 1 and 10 (got 0.9)");
  EXPECT_EQ(error_of([] {
              parse_site({{"carbon_intensity_g_per_kwh", -1}});
            }),
            "scenario.json: energy.carbon_intensity_g_per_kwh: must be between 0 and 10000 "
            "gCO2e/kWh (got -1)");
  EXPECT_EQ(error_of([] {
              parse_site({{"electricity_price_per_kwh", "cheap"}});
            }).find("energy.electricity_price_per_kwh"),
            15u);
  // A GPU without power figures (inline) needs the pool's.
  const perf::GpuSpec inline_gpu = perf::parse_gpu_object({{"name", "lab"},
                                                           {"memory_gib", 80},
                                                           {"hbm_bandwidth_gb_per_s", 2000},
                                                           {"flops_bf16_tflops", 500}},
                                                          "scenario.json", "fleet.pools[0].gpu");
  EXPECT_EQ(error_of([&] {
              resolve_pool_power(parse_pool(nlohmann::json::object()), inline_gpu, 1, SiteEnergy{},
                                 "scenario.json", "fleet.pools[0]");
            }),
            "scenario.json: fleet.pools[0].energy.gpu_max_w: missing: GPU \"lab\" has no power "
            "figures (power_max_w); give the pool's energy.gpu_max_w and gpu_idle_w");
  EXPECT_EQ(error_of([&] {
              resolve_pool_power(parse_pool({{"gpu_idle_w", 900}}),
                                 perf::find_gpu("H100-SXM", "test"), 1, SiteEnergy{},
                                 "scenario.json", "fleet.pools[0]");
            }),
            "scenario.json: fleet.pools[0].energy.gpu_idle_w: 900 W is above the max power 700 W");
}

}  // namespace
}  // namespace tidal::fleet
