#include "sim/energy_summary.h"

namespace tidal::sim {
namespace {

using ojson = nlohmann::ordered_json;

constexpr double kJoulesPerWh = 3600.0;
constexpr double kGramsPerKg = 1000.0;

double kwh(double joules) {
  return joules / fleet::kJoulesPerKwh;
}

ojson optional_json(const std::optional<double>& v) {
  return v ? ojson(*v) : ojson(nullptr);
}

std::optional<double> per_million_kwh(double joules, int64_t tokens) {
  if (tokens <= 0) return std::nullopt;
  return kwh(joules) / (static_cast<double>(tokens) * 1e-6);
}

// Fleet total of a per-pool figure, empty when any pool lacks it.
std::optional<double> total_of(const std::vector<PoolEnergy>& pools,
                               std::optional<double> PoolEnergy::*figure) {
  double sum = 0.0;
  for (const PoolEnergy& p : pools) {
    if (!(p.*figure)) return std::nullopt;
    sum += *(p.*figure);
  }
  return sum;
}

ojson joules_json(const fleet::EnergyJoules& it, double facility_joules) {
  return ojson{{"kwh", kwh(facility_joules)},
               {"kwh_it", kwh(it.it())},
               {"kwh_gpu_idle", kwh(it.gpu_idle)},
               {"kwh_gpu_dynamic", kwh(it.gpu_dynamic)},
               {"kwh_host", kwh(it.host)}};
}

}  // namespace

EnergyReport compute_energy(const Scenario& scenario, const RunResult& result) {
  EnergyReport report;
  for (size_t p = 0; p < scenario.pools.size(); ++p) {
    const PoolSpec& spec = scenario.pools[p];
    const fleet::PoolPower& power = spec.power;
    PoolEnergy pool;
    pool.pool = spec.name;
    const double gpus = static_cast<double>(power.gpus_per_replica);
    for (const ReplicaSummary& r : result.replicas) {
      if (r.pool != static_cast<int32_t>(p)) continue;
      pool.it += fleet::replica_energy(power, r.powered_ns, r.load.full_power_s);
      pool.powered_gpu_hours += gpus * static_cast<double>(r.powered_ns) / 1e9 / 3600.0;
      pool.full_power_gpu_hours += gpus * r.load.full_power_s / 3600.0;
    }
    pool.facility_joules = pool.it.it() * power.site.pue;
    if (power.site.carbon_intensity_g_per_kwh) {
      pool.kg_co2e =
          kwh(pool.facility_joules) * *power.site.carbon_intensity_g_per_kwh / kGramsPerKg;
    } else {
      report.pools_without_carbon_intensity.push_back(spec.name);
    }
    if (power.site.electricity_price_per_kwh) {
      pool.dollars = kwh(pool.facility_joules) * *power.site.electricity_price_per_kwh;
    } else {
      report.pools_without_electricity_price.push_back(spec.name);
    }
    report.it += pool.it;
    report.facility_joules += pool.facility_joules;
    report.pools.push_back(std::move(pool));
  }
  report.kg_co2e = total_of(report.pools, &PoolEnergy::kg_co2e);
  report.dollars = total_of(report.pools, &PoolEnergy::dollars);

  int64_t num_finished = 0;
  int64_t num_input_tokens = 0;
  int64_t num_output_tokens = 0;
  for (size_t i = 0; i < result.records.size(); ++i) {
    const RequestRecord& r = result.records[i];
    if (r.status != RequestStatus::finished) continue;
    ++num_finished;
    num_input_tokens += result.table.requests[i].prompt_tokens;
    num_output_tokens += r.num_output_tokens_done;
  }
  if (num_finished > 0) {
    report.wh_per_request =
        report.facility_joules / kJoulesPerWh / static_cast<double>(num_finished);
  }
  report.kwh_per_1m_output_tokens = per_million_kwh(report.facility_joules, num_output_tokens);
  report.kwh_per_1m_tokens =
      per_million_kwh(report.facility_joules, num_input_tokens + num_output_tokens);
  if (result.end_ns > 0) {
    report.mean_power_kw =
        kwh(report.facility_joules) / (static_cast<double>(result.end_ns) / 1e9 / 3600.0);
  }
  return report;
}

ojson energy_summary_json(const Scenario& scenario, const EnergyReport& report) {
  ojson pools = ojson::array();
  for (size_t p = 0; p < report.pools.size(); ++p) {
    const PoolSpec& spec = scenario.pools[p];
    const fleet::PoolPower& power = spec.power;
    const PoolEnergy& e = report.pools[p];
    ojson j{{"pool", e.pool},
            {"gpu", spec.gpu},
            {"region", spec.region.empty() ? ojson(nullptr) : ojson(spec.region)},
            {"gpus_per_replica", power.gpus_per_replica},
            {"gpu_idle_w", power.gpu.idle_w},
            {"gpu_max_w", power.gpu.max_w},
            {"host_power_w", power.host_power_w},
            {"gpus_per_node", power.gpus_per_node},
            {"pue", power.site.pue},
            {"carbon_intensity_g_per_kwh", optional_json(power.site.carbon_intensity_g_per_kwh)},
            {"electricity_price_per_kwh", optional_json(power.site.electricity_price_per_kwh)},
            {"powered_gpu_hours", e.powered_gpu_hours},
            {"full_power_gpu_hours", e.full_power_gpu_hours}};
    j.update(joules_json(e.it, e.facility_joules));
    j["kg_co2e"] = optional_json(e.kg_co2e);
    j["energy_dollars"] = optional_json(e.dollars);
    pools.push_back(std::move(j));
  }
  ojson summary = joules_json(report.it, report.facility_joules);
  summary["mean_power_kw"] = optional_json(report.mean_power_kw);
  summary["wh_per_request"] = optional_json(report.wh_per_request);
  summary["kwh_per_1m_output_tokens"] = optional_json(report.kwh_per_1m_output_tokens);
  summary["kwh_per_1m_tokens"] = optional_json(report.kwh_per_1m_tokens);
  summary["kg_co2e"] = optional_json(report.kg_co2e);
  summary["energy_dollars"] = optional_json(report.dollars);
  summary["pools_without_carbon_intensity"] = report.pools_without_carbon_intensity;
  summary["pools_without_electricity_price"] = report.pools_without_electricity_price;
  summary["pools"] = std::move(pools);
  return summary;
}

}  // namespace tidal::sim
