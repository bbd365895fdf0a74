// summary.json's `costs.egress` (docs/run-output.md, "Egress"): what priced links carried and
// cost, by flow (request, response, KV), by link and by pool. Present only when the scenario
// prices egress (Scenario::prices_egress).
#pragma once

#include <nlohmann/json.hpp>

#include "sim/egress_meter.h"
#include "sim/scenario.h"

namespace tidal::sim {

nlohmann::ordered_json egress_summary_json(const Scenario& scenario, const EgressReport& egress);

}  // namespace tidal::sim
