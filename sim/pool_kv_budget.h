// Cutting a pool's KV blocks again after its memory plan changed (lossy KV bytes per token,
// GPU memory kept for LoRA adapters): the same arithmetic as perf::plan_memory, on the plan's
// current budget and bytes per token. Internal to sim/scenario_*.cpp.
#pragma once

#include <string>

#include "sim/scenario.h"

namespace tidal::sim {

// Sets pool.memory's num_kv_blocks_per_rank and num_kv_blocks from its kv_cache_bytes_per_gpu,
// sliding_kv_reserve_bytes and kv_bytes_per_token_per_gpu. InputError "<where>: <what>: ..."
// when not one block fits, or more than a block table holds.
void recut_kv_blocks(PoolSpec& pool, const std::string& where, const std::string& what);

}  // namespace tidal::sim
