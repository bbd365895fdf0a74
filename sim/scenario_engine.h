// The pool key `engine` (docs/scenario.md, "Engine presets"): an engine name ("vllm",
// "sglang", "trtllm") or {"name", "version", "async_scheduling", "step_overhead_base_s",
// "step_overhead_per_seq_s", "frontend_per_request_s", "detokenize_per_token_s",
// "state_memory_ratio"}. The preset
// (perf/engine_preset.h) fills every key the pool leaves out; keys the pool gives win. Internal
// to sim/scenario_fleet.cpp.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "perf/roofline_model.h"
#include "sim/json_object.h"
#include "sim/scenario.h"

namespace tidal::sim {

// Reads `engine` (absent or null: nothing changes) and gives the pool the engine's default for
// each scheduler key `sched_json` lacks (null: the pool has no scheduler object) and for
// gpu_memory_utilization, block_size and prefix_caching when the pool lacks them; the memory
// fraction's meaning is always the engine's. Call after the scheduler, the deployment and the
// fleet keys (`speculative`) are read, before the memory plan.
void apply_engine_preset(JsonObject& pool_obj, const nlohmann::json* sched_json, PoolSpec& pool);

// After the memory plan: defaults that depend on the KV pool (SGLang's max_running_requests).
// Plans memory again when the new sequence limit changes what the plan reserves (sliding-window
// layers, recurrent states); `where` labels plan errors.
void finish_engine_preset(PoolSpec& pool, const std::string& where);

// A linear-attention model runs at most the sequences whose recurrent states the memory plan
// holds (perf::MemoryPlan::num_state_slots): lowers the scheduler's max_num_seqs (and the
// engine default it came from) to that. Nothing for other models.
void cap_seqs_to_state_slots(PoolSpec& pool);

// Options of the pool's step-time model: the engine's per-step CPU overhead in the explicit
// CPU-overhead term, else the defaults.
perf::RooflineOptions step_model_options(const PoolSpec& pool);

}  // namespace tidal::sim
