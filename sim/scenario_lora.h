// A pool's `lora` key (docs/scenario.md, "LoRA adapters"): the adapters it serves on its base
// model, how many one step may hold and one replica keeps loaded, their rank and load
// bandwidth. Internal to sim/scenario_fleet.cpp.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/json_object.h"
#include "sim/scenario.h"

namespace tidal::sim {

// Reads `lora` from `pool_obj` (after the model, the layout and the scheduler) into pool.lora
// and the scheduler's max_loras_per_batch.
void read_pool_lora(JsonObject& pool_obj, PoolSpec& pool);
// GPU memory for max_loras_per_batch adapters, taken from the KV budget as vLLM reserves it
// (call after the memory plan).
void apply_lora_memory(PoolSpec& pool, const std::string& where);
// `lora` as summary.json echoes it (without the resolved figures); null without.
nlohmann::ordered_json lora_to_json(const PoolSpec& pool);

}  // namespace tidal::sim
