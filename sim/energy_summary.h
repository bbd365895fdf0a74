// summary.json's `energy` section (docs/fleet.md, "Energy and carbon"): each pool's energy by
// part (GPU idle, GPU above idle, host) from its replicas' powered time and steps through the
// power model (sim/fleet/energy_model.h), the site's PUE on top, carbon where the site gives an
// intensity, dollars where it gives a price; the fleet's totals and per-request and per-token
// figures. Present only when the scenario asks for energy (Scenario::report_energy): RunMetrics::
// energy then holds it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/fleet/energy_model.h"
#include "sim/scenario.h"
#include "sim/simulator.h"

namespace tidal::sim {

struct PoolEnergy {
  std::string pool;
  double powered_gpu_hours = 0.0;     // GPUs x time in states that draw power
  double full_power_gpu_hours = 0.0;  // GPUs x the steps' utilisation x step time
  fleet::EnergyJoules it;             // before PUE
  double facility_joules = 0.0;       // it x PUE
  std::optional<double> kg_co2e;      // empty without the site's carbon intensity
  std::optional<double> dollars;      // empty without the site's electricity price
};

struct EnergyReport {
  std::vector<PoolEnergy> pools;  // [num_pools]
  fleet::EnergyJoules it;
  double facility_joules = 0.0;
  // Fleet totals: empty when some pool lacks the figure (the pools are named below).
  std::optional<double> kg_co2e;
  std::optional<double> dollars;
  std::vector<std::string> pools_without_carbon_intensity;
  std::vector<std::string> pools_without_electricity_price;
  // Over every finished request and its tokens (kept or in the warm-up: the energy served them
  // all, as the dollars did); empty when there are none.
  std::optional<double> wh_per_request;
  std::optional<double> kwh_per_1m_output_tokens;
  std::optional<double> kwh_per_1m_tokens;  // input + output
  std::optional<double> mean_power_kw;      // facility energy over the run's time
};

EnergyReport compute_energy(const Scenario& scenario, const RunResult& result);

// summary.json `energy`: `report` with each pool's resolved figures.
nlohmann::ordered_json energy_summary_json(const Scenario& scenario, const EnergyReport& report);

}  // namespace tidal::sim
