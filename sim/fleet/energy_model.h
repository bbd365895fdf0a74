// The power model behind summary.json `energy` (docs/fleet.md, "Energy and carbon"):
//   GPU board power = idle + (max - idle) x utilisation, utilisation = max(MFU, MBU) of the step,
// idle power whenever a replica holds its GPUs (loading, warm, draining) and is not stepping, a
// constant host power per node shared by the node's GPUs, and the site's PUE on top. Energy
// integrates exactly over a replica's life:
//   IT joules = gpus x (idle_w x powered_s + (max_w - idle_w) x full_power_s)
//             + host_power_w x gpus / gpus_per_node x powered_s
//   facility joules = IT joules x PUE
// where full_power_s is the sum over its steps of utilisation x step seconds.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "perf/gpu_catalog.h"
#include "perf/json_reader.h"
#include "sim/fleet/lifecycle.h"

namespace tidal::fleet {

// Whether a replica in `state` draws power: it holds its GPUs, loading, warm or draining (the
// states billing bills by default); requested, provisioning (the GPUs are not yet the fleet's)
// and stopped replicas draw none.
bool draws_power(LifecycleState state);

// One step's utilisation in [0, 1]: the larger of its MFU (flops / (peak FLOP/s x seconds)) and
// MBU (bytes / (bandwidth x seconds)), per GPU. A peak of 0 leaves its term out.
double step_utilisation(double flops, double bytes, double peak_flops, double peak_bytes_per_s,
                        double step_s);

struct GpuPower {
  double idle_w = 0.0;
  double max_w = 0.0;
};
// Board power at `utilisation` in [0, 1] (clamped): the linear model above.
double gpu_power_w(const GpuPower& power, double utilisation);

// A pool's `energy` object as written (every key optional).
struct PoolEnergySpec {
  std::optional<double> gpu_idle_w;  // default: the GPU catalog's power_idle_w
  std::optional<double> gpu_max_w;   // default: the GPU catalog's power_max_w
  double host_power_w = 0.0;         // per node: CPUs, memory, NICs, fans; 0 = not counted
  int32_t gpus_per_node = 8;         // GPUs sharing one host (an HGX board holds 8)
};

// Parses a pool's `energy` object. Unknown keys, negative or non-finite powers, gpu_idle_w above
// gpu_max_w and gpus_per_node < 1 are InputErrors naming `where` and the JSON path.
PoolEnergySpec parse_pool_energy_spec(const nlohmann::json& json, const std::string& where,
                                      const std::string& path);

// A site's power overhead and grid: where a pool's energy is drawn.
struct SiteEnergy {
  double pue = 1.0;  // facility energy / IT energy; 1.0 = no overhead applied
  std::optional<double> carbon_intensity_g_per_kwh;  // gCO2e per kWh; none: no carbon figure
  std::optional<double> electricity_price_per_kwh;   // US$ per kWh; none: no energy cost
};

// The site keys as written (the scenario's `energy` object, a network region): each optional.
struct SiteEnergyKeys {
  std::optional<double> pue;
  std::optional<double> carbon_intensity_g_per_kwh;
  std::optional<double> electricity_price_per_kwh;

  bool any() const { return pue || carbon_intensity_g_per_kwh || electricity_price_per_kwh; }
  // `base` with the keys given here in place of its own.
  SiteEnergy over(const SiteEnergy& base) const;
};

// The keys read_site_energy_keys reads.
inline constexpr std::array<std::string_view, 3> kSiteEnergyKeys{
    "pue", "carbon_intensity_g_per_kwh", "electricity_price_per_kwh"};
// Reads `pue` (>= 1), `carbon_intensity_g_per_kwh` (>= 0) and `electricity_price_per_kwh` (>= 0)
// where present. Bad values are InputErrors naming reader.where() and the key's JSON path.
SiteEnergyKeys read_site_energy_keys(perf::JsonObjectReader& reader);

// Everything the integration needs about one pool, resolved.
struct PoolPower {
  GpuPower gpu;
  double host_power_w = 0.0;
  int32_t gpus_per_node = 8;
  int32_t gpus_per_replica = 1;
  SiteEnergy site;
};

// The pool's figures: the spec's GPU powers over the catalog's. InputError naming `path`
// (the pool's JSON path) when neither gives a max power.
PoolPower resolve_pool_power(const PoolEnergySpec& spec, const perf::GpuSpec& gpu,
                             int32_t gpus_per_replica, const SiteEnergy& site,
                             const std::string& where, const std::string& path);

// IT energy of one replica or a pool's replicas, by part, in joules (before PUE).
struct EnergyJoules {
  double gpu_idle = 0.0;     // idle power over the powered time
  double gpu_dynamic = 0.0;  // (max - idle) x utilisation over the steps
  double host = 0.0;

  double it() const { return gpu_idle + gpu_dynamic + host; }
  EnergyJoules& operator+=(const EnergyJoules& other) {
    gpu_idle += other.gpu_idle;
    gpu_dynamic += other.gpu_dynamic;
    host += other.host;
    return *this;
  }
};

// A replica powered for `powered_ns` whose steps add up to `full_power_s` seconds at full
// utilisation per GPU (sum of utilisation x step seconds).
EnergyJoules replica_energy(const PoolPower& pool, int64_t powered_ns, double full_power_s);

inline constexpr double kJoulesPerKwh = 3.6e6;

}  // namespace tidal::fleet
