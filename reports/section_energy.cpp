// Energy and carbon: facility kWh, mean power, Wh per request, kWh per 1M output tokens,
// kgCO2e and energy dollars where the sites give intensities and prices, and each pool's
// figures (summary.json `energy`, docs/fleet.md "Energy and carbon").
#include <fmt/format.h>

#include "reports/cells.h"
#include "reports/sections.h"

namespace tidal::reports {
namespace {

// A figure the run may lack for want of a site input: the figure, or a cell saying why not.
Cell figure_or_missing(const std::optional<double>& value, const char* missing) {
  return value ? significant_cell(value) : Cell{missing, nullptr};
}

}  // namespace

std::optional<Section> energy_section(const RunSection& r) {
  if (!r.run.summary.energy) return std::nullopt;
  const EnergyFigures& e = *r.run.summary.energy;
  Section section{"energy" + r.id_suffix, "Energy and carbon" + r.title_suffix, {}};
  section.blocks.push_back(KeyFigures{{
      {"energy (kWh)", significant_cell(e.kwh)},
      {"mean power (kW)", significant_cell(e.mean_power_kw)},
      {"Wh / request", significant_cell(e.wh_per_request)},
      {"kWh / 1M output tokens", significant_cell(e.kwh_per_1m_output_tokens)},
      {"kgCO2e", figure_or_missing(e.kg_co2e, "not computed")},
      {"energy cost",
       e.energy_dollars ? dollars_cell(e.energy_dollars) : Cell{"not computed", nullptr}},
  }});
  std::string notes =
      "Model: GPU board power = idle + (max - idle) x utilisation, utilisation = max(MFU, MBU) "
      "of each step by the roofline counts; idle power while a replica holds its GPUs "
      "(loading, warm, draining) and runs no step; host power per node shared by "
      "its GPUs; facility energy = IT energy x PUE. An estimate from datasheet maxima and an "
      "assumed idle share, not a measurement.";
  if (!e.pools_without_carbon_intensity.empty()) {
    notes += fmt::format(
        " No carbon figure for {} (no carbon_intensity_g_per_kwh for its site), so none for the "
        "fleet.",
        joined_names(e.pools_without_carbon_intensity));
  }
  if (!e.pools_without_electricity_price.empty()) {
    notes += fmt::format(" No energy cost for {} (no electricity_price_per_kwh for its site).",
                         joined_names(e.pools_without_electricity_price));
  }
  section.blocks.push_back(Paragraph{notes});

  Table split{"energy-by-part" + r.id_suffix,
              "IT energy by part (kWh, before PUE)",
              {"part", "kWh", "share"},
              {}};
  const std::pair<const char*, double> parts[] = {{"GPU idle", e.kwh_gpu_idle},
                                                  {"GPU above idle (steps)", e.kwh_gpu_dynamic},
                                                  {"host", e.kwh_host}};
  for (const auto& [part, kwh] : parts) {
    split.rows.push_back(
        {text_cell(part), significant_cell(kwh),
         percent_cell(e.kwh_it > 0 ? std::optional(kwh / e.kwh_it) : std::nullopt)});
  }
  section.blocks.push_back(std::move(split));

  Table pools{"energy-by-pool" + r.id_suffix,
              "Energy by pool",
              {"pool", "region", "GPU", "idle / max W", "host W", "PUE", "GPU-hours powered", "kWh",
               "gCO2e / kWh", "kgCO2e", "$ / kWh", "energy $"},
              {}};
  for (const PoolEnergyFigures& p : e.pools) {
    pools.rows.push_back(
        {text_cell(p.pool), text_cell(p.region.empty() ? "-" : p.region), text_cell(p.gpu),
         text_cell(fmt::format("{:g} / {:g}", p.gpu_idle_w, p.gpu_max_w)),
         significant_cell(p.host_power_w), significant_cell(p.pue),
         significant_cell(p.powered_gpu_hours), significant_cell(p.kwh),
         figure_or_missing(p.carbon_intensity_g_per_kwh, "not given"),
         figure_or_missing(p.kg_co2e, "not computed"),
         figure_or_missing(p.electricity_price_per_kwh, "not given"),
         p.energy_dollars ? dollars_cell(p.energy_dollars) : Cell{"not computed", nullptr}});
  }
  section.blocks.push_back(std::move(pools));
  return section;
}

}  // namespace tidal::reports
