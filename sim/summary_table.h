// The compact plain-text summary `tidal simulate` prints.
#pragma once

#include <string>

#include "sim/metrics.h"
#include "sim/scenario.h"

namespace tidal::sim {

std::string format_summary_table(const Scenario& scenario, const RunMetrics& metrics);

}  // namespace tidal::sim
