// summary.json `energy` (runs whose scenario asked for energy; docs/fleet.md, "Energy and
// carbon") read into memory, strictly: a missing field is an InputError naming its JSON path.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tidal::reports {

class JsonView;  // reports/json_fields.h

// One pool's energy (summary.json energy.pools[]).
struct PoolEnergyFigures {
  std::string pool, gpu;
  std::string region;  // "" without a network
  double gpu_idle_w = 0.0, gpu_max_w = 0.0, host_power_w = 0.0, pue = 1.0;
  std::optional<double> carbon_intensity_g_per_kwh, electricity_price_per_kwh;
  double powered_gpu_hours = 0.0, full_power_gpu_hours = 0.0;
  double kwh = 0.0, kwh_gpu_idle = 0.0, kwh_gpu_dynamic = 0.0, kwh_host = 0.0;
  std::optional<double> kg_co2e, energy_dollars;  // empty without the site's figure
};

struct EnergyFigures {
  double kwh = 0.0;  // facility (PUE applied)
  double kwh_it = 0.0, kwh_gpu_idle = 0.0, kwh_gpu_dynamic = 0.0, kwh_host = 0.0;
  std::optional<double> mean_power_kw, wh_per_request, kwh_per_1m_output_tokens, kwh_per_1m_tokens;
  std::optional<double> kg_co2e, energy_dollars;  // empty when some pool lacks the figure
  std::vector<std::string> pools_without_carbon_intensity, pools_without_electricity_price;
  std::vector<PoolEnergyFigures> pools;
};

// summary.json `energy`.
EnergyFigures read_energy_figures(const JsonView& energy);

}  // namespace tidal::reports
