#include "reports/energy_figures.h"

#include "reports/json_fields.h"

namespace tidal::reports {

EnergyFigures read_energy_figures(const JsonView& v) {
  using E = EnergyFigures;
  EnergyFigures e;
  read_fields(v, e, "kwh", &E::kwh, "kwh_it", &E::kwh_it, "kwh_gpu_idle", &E::kwh_gpu_idle,
              "kwh_gpu_dynamic", &E::kwh_gpu_dynamic, "kwh_host", &E::kwh_host, "mean_power_kw",
              &E::mean_power_kw, "wh_per_request", &E::wh_per_request, "kwh_per_1m_output_tokens",
              &E::kwh_per_1m_output_tokens, "kwh_per_1m_tokens", &E::kwh_per_1m_tokens, "kg_co2e",
              &E::kg_co2e, "energy_dollars", &E::energy_dollars);
  e.pools_without_carbon_intensity = v.strings("pools_without_carbon_intensity");
  e.pools_without_electricity_price = v.strings("pools_without_electricity_price");
  e.pools = read_each(v, "pools", [](const JsonView& p) {
    using P = PoolEnergyFigures;
    PoolEnergyFigures pool;
    read_fields(p, pool, "pool", &P::pool, "gpu", &P::gpu, "gpu_idle_w", &P::gpu_idle_w,
                "gpu_max_w", &P::gpu_max_w, "host_power_w", &P::host_power_w, "pue", &P::pue,
                "carbon_intensity_g_per_kwh", &P::carbon_intensity_g_per_kwh,
                "electricity_price_per_kwh", &P::electricity_price_per_kwh, "powered_gpu_hours",
                &P::powered_gpu_hours, "full_power_gpu_hours", &P::full_power_gpu_hours, "kwh",
                &P::kwh, "kwh_gpu_idle", &P::kwh_gpu_idle, "kwh_gpu_dynamic", &P::kwh_gpu_dynamic,
                "kwh_host", &P::kwh_host, "kg_co2e", &P::kg_co2e, "energy_dollars",
                &P::energy_dollars);
    if (p.has("region")) pool.region = p.string("region");
    return pool;
  });
  return e;
}

}  // namespace tidal::reports
