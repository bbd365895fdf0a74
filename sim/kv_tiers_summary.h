// summary.json's `kv_tiers` section (docs/scheduler.md, "KV offload tiers"): per pool with
// kv_tiers, its prefix hits by tier (GPU first), each tier's traffic and occupancy, and the load
// time tier hits added to requests' paths. Present only when some pool has tiers.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/scenario.h"
#include "sim/simulator.h"

namespace tidal::sim {

// Null for a scenario without kv_tiers.
nlohmann::ordered_json kv_tiers_summary_json(const Scenario& scenario, const RunResult& result);

}  // namespace tidal::sim
