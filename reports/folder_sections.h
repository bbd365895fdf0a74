// Sections for validation and plan folders (folder_data.h).
#pragma once

#include <string>

#include "reports/document.h"
#include "reports/folder_data.h"

namespace tidal::reports {

// Predicted vs measured CDFs of TTFT, TPOT and E2E, and the error table of validation.json.
Section fidelity_section(const ValidationData& v, const std::string& id_suffix);
// The cheapest configuration meeting the SLO, the frontier, a cost-vs-latency scatter and the
// full candidate table.
Section plan_section(const PlanData& plan, const std::string& id_suffix);

}  // namespace tidal::reports
