// A pool's `lossy` key (docs/perf.md, "Lossy speedups"): KV eviction by kept ratio or window,
// layer skipping, and the quality loss the user declares for them (never verified). Internal to
// sim/scenario_fleet.cpp and sim/scenario_engine.cpp.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/json_object.h"
#include "sim/scenario.h"

namespace tidal::sim {

// Reads `lossy` from `pool_obj` (after the model) into pool.lossy; absent: nothing lossy.
void read_pool_lossy(JsonObject& pool_obj, PoolSpec& pool);
// Scales pool.memory's KV bytes per token by the KV the cache keeps, and cuts the KV blocks
// again from the same budget (call after every perf::plan_memory of the pool).
void apply_lossy_memory(PoolSpec& pool, const std::string& where);
// `lossy` as summary.json echoes it; null when the pool has none.
nlohmann::ordered_json lossy_to_json(const PoolSpec& pool);

}  // namespace tidal::sim
