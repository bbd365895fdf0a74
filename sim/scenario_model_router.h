// Scenario keys of model routing (docs/scenario.md, "Model routing"): the top-level
// `model_router`, and the checks of the workloads' `model` and `complexity` against the fleet
// (internal to the loader).
#pragma once

#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/json_object.h"
#include "sim/scenario.h"

namespace tidal::sim {

// The `model_router` (nullopt when absent). Also checks every workload's `model` names a model
// an entry pool (role prefill or both) serves and its `complexity` is a valid distribution.
std::optional<ModelRouterSpec> parse_model_router(JsonObject& root,
                                                  const std::vector<PoolSpec>& pools,
                                                  const std::vector<WorkloadSpec>& workloads);
nlohmann::ordered_json model_router_to_json(const ModelRouterSpec& spec);

// Whether some entry pool serves `model`.
bool fleet_serves_model(const std::vector<PoolSpec>& pools, const std::string& model);
// The models the entry pools serve, comma-separated in pool order, for messages.
std::string served_models_text(const std::vector<PoolSpec>& pools);

}  // namespace tidal::sim
