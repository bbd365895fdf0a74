// summary.json's `lora` section (docs/scenario.md, "LoRA adapters"): per pool with `lora`, the
// adapters its replicas loaded, found loaded and evicted, the time steps spent loading them,
// the adapters a step held on average, and the waiting requests passed over for a full step.
// Present only when some pool has `lora`.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/scenario.h"
#include "sim/simulator.h"

namespace tidal::sim {

// Null for a scenario without `lora`.
nlohmann::ordered_json lora_summary_json(const Scenario& scenario, const RunResult& result);

}  // namespace tidal::sim
