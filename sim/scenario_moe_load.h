// A pool's `moe` key: how its MoE model's routed assignments spread over the experts, as a Zipf
// exponent (`expert_skew`) or a load per expert (`expert_load`), into pool.deployment.expert_load
// (perf/expert_load.h). Internal to sim/scenario_fleet.cpp.
#pragma once

#include "sim/json_object.h"
#include "sim/scenario.h"

namespace tidal::sim {

// Reads `moe` from `pool_obj` (after the model and `perf`): refused on a dense model and with
// measured profiles; pool.moe_input keeps it as written for the echo.
void read_pool_moe(JsonObject& pool_obj, PoolSpec& pool);

}  // namespace tidal::sim
