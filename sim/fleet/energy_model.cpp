#include "sim/fleet/energy_model.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/fleet/spec_reading.h"

namespace tidal::fleet {
namespace {

// Bounds far above any real figure, keeping the integration far from overflow: the hungriest
// catalog part draws 1,400 W; a PUE of 3 is an old, inefficient data centre; the most carbon
// intensive grids emit about 1,000 gCO2e/kWh.
constexpr double kMaxPowerW = 1e6;
constexpr double kMaxPue = 10.0;
constexpr double kMaxCarbonIntensity = 1e4;
constexpr double kMaxPricePerKwh = 1e3;
constexpr int64_t kMaxGpusPerNode = 4096;

double read_bounded(perf::JsonObjectReader& reader, std::string_view key, double min_value,
                    double max_value, std::string_view unit) {
  const double value = read_number(reader, key, 0.0, Bound::any);
  if (!(value >= min_value && value <= max_value)) {
    perf::throw_json_error(
        reader.where(), reader.child_path(key),
        fmt::format("must be between {:g} and {:g}{} (got {})", min_value, max_value, unit, value));
  }
  return value;
}

std::optional<double> optional_bounded(perf::JsonObjectReader& reader, std::string_view key,
                                       double min_value, double max_value, std::string_view unit) {
  if (!reader.has(key)) return std::nullopt;
  return read_bounded(reader, key, min_value, max_value, unit);
}

}  // namespace

bool draws_power(LifecycleState state) {
  return state == LifecycleState::loading || state == LifecycleState::warm ||
         state == LifecycleState::draining;
}

double step_utilisation(double flops, double bytes, double peak_flops, double peak_bytes_per_s,
                        double step_s) {
  if (!(step_s > 0.0)) return 0.0;
  double utilisation = 0.0;
  if (peak_flops > 0.0) utilisation = std::max(utilisation, flops / (peak_flops * step_s));
  if (peak_bytes_per_s > 0.0) {
    utilisation = std::max(utilisation, bytes / (peak_bytes_per_s * step_s));
  }
  return std::clamp(utilisation, 0.0, 1.0);
}

double gpu_power_w(const GpuPower& power, double utilisation) {
  return power.idle_w + (power.max_w - power.idle_w) * std::clamp(utilisation, 0.0, 1.0);
}

PoolEnergySpec parse_pool_energy_spec(const nlohmann::json& json, const std::string& where,
                                      const std::string& path) {
  perf::JsonObjectReader reader(json, where, path);
  PoolEnergySpec spec;
  spec.gpu_idle_w = optional_bounded(reader, "gpu_idle_w", 0.0, kMaxPowerW, " W");
  spec.gpu_max_w = optional_bounded(reader, "gpu_max_w", 0.0, kMaxPowerW, " W");
  if (spec.gpu_max_w && !(*spec.gpu_max_w > 0.0)) {
    perf::throw_json_error(where, reader.child_path("gpu_max_w"), "must be > 0");
  }
  if (spec.gpu_idle_w && spec.gpu_max_w && *spec.gpu_idle_w > *spec.gpu_max_w) {
    perf::throw_json_error(where, reader.child_path("gpu_idle_w"),
                           fmt::format("must be <= gpu_max_w ({:g} W), got {:g} W", *spec.gpu_max_w,
                                       *spec.gpu_idle_w));
  }
  if (reader.has("host_power_w")) {
    spec.host_power_w = read_bounded(reader, "host_power_w", 0.0, kMaxPowerW, " W");
  }
  spec.gpus_per_node = static_cast<int32_t>(
      read_integer(reader, "gpus_per_node", spec.gpus_per_node, 1, kMaxGpusPerNode));
  reader.finish();
  return spec;
}

SiteEnergy SiteEnergyKeys::over(const SiteEnergy& base) const {
  SiteEnergy site = base;
  if (pue) site.pue = *pue;
  if (carbon_intensity_g_per_kwh) site.carbon_intensity_g_per_kwh = carbon_intensity_g_per_kwh;
  if (electricity_price_per_kwh) site.electricity_price_per_kwh = electricity_price_per_kwh;
  return site;
}

SiteEnergyKeys read_site_energy_keys(perf::JsonObjectReader& reader) {
  SiteEnergyKeys keys;
  keys.pue = optional_bounded(reader, "pue", 1.0, kMaxPue, "");
  keys.carbon_intensity_g_per_kwh = optional_bounded(reader, "carbon_intensity_g_per_kwh", 0.0,
                                                     kMaxCarbonIntensity, " gCO2e/kWh");
  keys.electricity_price_per_kwh =
      optional_bounded(reader, "electricity_price_per_kwh", 0.0, kMaxPricePerKwh, " $/kWh");
  return keys;
}

PoolPower resolve_pool_power(const PoolEnergySpec& spec, const perf::GpuSpec& gpu,
                             int32_t gpus_per_replica, const SiteEnergy& site,
                             const std::string& where, const std::string& path) {
  PoolPower pool;
  pool.gpu.max_w = spec.gpu_max_w.value_or(gpu.power_max_w);
  pool.gpu.idle_w = spec.gpu_idle_w.value_or(gpu.power_idle_w);
  if (!(pool.gpu.max_w > 0.0)) {
    perf::throw_json_error(where, path + ".energy.gpu_max_w",
                           fmt::format("missing: GPU \"{}\" has no power figures (power_max_w); "
                                       "give the pool's energy.gpu_max_w and gpu_idle_w",
                                       gpu.name));
  }
  if (pool.gpu.idle_w > pool.gpu.max_w) {
    perf::throw_json_error(
        where, path + ".energy.gpu_idle_w",
        fmt::format("{:g} W is above the max power {:g} W", pool.gpu.idle_w, pool.gpu.max_w));
  }
  pool.host_power_w = spec.host_power_w;
  pool.gpus_per_node = spec.gpus_per_node;
  pool.gpus_per_replica = gpus_per_replica;
  pool.site = site;
  return pool;
}

EnergyJoules replica_energy(const PoolPower& pool, int64_t powered_ns, double full_power_s) {
  const double powered_s = static_cast<double>(powered_ns) / 1e9;
  const double gpus = static_cast<double>(pool.gpus_per_replica);
  EnergyJoules joules;
  joules.gpu_idle = gpus * pool.gpu.idle_w * powered_s;
  joules.gpu_dynamic = gpus * (pool.gpu.max_w - pool.gpu.idle_w) * full_power_s;
  joules.host = pool.host_power_w * gpus / static_cast<double>(pool.gpus_per_node) * powered_s;
  return joules;
}

}  // namespace tidal::fleet
