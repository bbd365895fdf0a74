// The fleet keys of one pool (`autoscaler`, `cold_start`, `pricing`, `spot`, `speculative`,
// `region`, `role`, `energy`), read and resolved for the scenario loader. Internal to
// sim/scenario_fleet.cpp.
#pragma once

#include <array>
#include <string_view>

#include "perf/gpu_catalog.h"
#include "perf/model_catalog.h"
#include "sim/json_object.h"
#include "sim/scenario.h"

namespace tidal::sim {

// The keys this reads, for JsonObject::finish.
inline constexpr std::array<std::string_view, 9> kPoolFleetKeys{
    "autoscaler", "cold_start", "pricing", "spot", "speculative",
    "region",     "role",       "energy",  "owned"};

// Reads the keys from `pool_obj` into `pool` (before the memory plan).
void read_pool_fleet_keys(JsonObject& pool_obj, PoolSpec& pool);

// The parallel layout beside `tp`: `ep`, `attention_dp` and `pp` (integers >= 1, default 1), and
// `pp_link` (the link between pipeline stages: a kind name or {kind, gb_per_s_per_gpu,
// latency_ms}; default nvlink while a replica's GPUs fit one 8-GPU node, infiniband beyond), into
// pool.deployment and pool.pp_link (before the engine preset and the memory plan).
inline constexpr std::array<std::string_view, 4> kPoolLayoutKeys{"ep", "attention_dp", "pp",
                                                                 "pp_link"};
void read_pool_layout_keys(JsonObject& pool_obj, PoolSpec& pool);

// After the memory plan: cold-start times, resolved prices, the scheduler's speculative tokens.
void resolve_pool_fleet(const JsonObject& pool_obj, const perf::ModelSpec& model,
                        const perf::GpuSpec& gpu, PoolSpec& pool);

}  // namespace tidal::sim
