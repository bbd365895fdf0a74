// Whether runs replayed the same workload, so a multi-run report shows its workload section once.
#pragma once

#include <vector>

#include "reports/run_data.h"

namespace tidal::reports {

// True when every run has requests.csv and the same requests (arrival, prompt and output
// lengths, tenant, SLO class) and SLO classes (names and bounds) as the first.
bool same_workload(const std::vector<RunData>& runs);

}  // namespace tidal::reports
