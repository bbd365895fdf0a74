// Report sections (docs/report.md lists each section, its id and where every figure comes
// from). A run's sections take an id suffix ("" for a single run, "-2" for the second of
// several) so every id in a report is unique.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/document.h"
#include "reports/run_data.h"

namespace tidal::reports {

struct RunSection {
  const RunData& run;
  std::string id_suffix;     // appended to every section, table and chart id
  std::string title_suffix;  // appended to the section title (" — run label")
};

Section overview_section(const RunSection& r);
Section workload_section(const RunSection& r);
Section latency_section(const RunSection& r);
Section fleet_section(const RunSection& r);
Section cost_section(const RunSection& r);
// Present only when summary.json has `energy` (the scenario asked for it).
std::optional<Section> energy_section(const RunSection& r);
// Present when summary.json has `lora`.
std::optional<Section> lora_section(const RunSection& r);
// Present when some pool of the scenario echo has `lossy`.
std::optional<Section> lossy_section(const RunSection& r);
// Present when summary.json has costs.egress.
std::optional<Section> egress_section(const RunSection& r);
// Present only when summary.json has `by_model` (model routing).
std::optional<Section> models_section(const RunSection& r);
// Present only when requests.csv has a hol_blocking_s column.
std::optional<Section> hol_section(const RunSection& r);
// Two or more runs side by side, ratios against the first run, a verdict per metric.
Section comparison_section(const std::vector<RunData>& runs);

}  // namespace tidal::reports
