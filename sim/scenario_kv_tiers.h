// A pool's `kv_tiers` (docs/scheduler.md, "KV offload tiers"): read and resolved for the
// scenario loader, and the fleet's one shared remote tier. Internal to sim/.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/kv/tier_store.h"
#include "sim/json_object.h"
#include "sim/scenario.h"

namespace tidal::sim {

// Reads `tiers` (the value of `kv_tiers` of `pool_obj`, null when absent) into pool.kv_tiers,
// after the memory plan (a tier's capacity
// in blocks needs the pool's KV bytes per block) and after prefix_caching and the scheduler.
// Throws InputError naming the JSON path: an unknown key or kind, a missing or non-positive
// bandwidth or capacity (only a remote tier may leave capacity_gib out: unbounded), a kind given
// twice, a remote tier not last, tiers with prefix caching off or with static batching.
void read_pool_kv_tiers(const nlohmann::json* tiers, const JsonObject& pool_obj, PoolSpec& pool);

// The pools naming a remote tier share one store: they must serve the same model with the same
// block size and KV bytes per block, and give the remote tier the same keys. Throws InputError
// naming the second pool's tier otherwise.
void check_shared_remote_tier(const std::vector<PoolSpec>& pools, const std::string& file);

// The one remote tier of a run (empty before its first write), or null when no pool names one.
std::shared_ptr<kv::KvTier> make_remote_tier(const std::vector<PoolSpec>& pools);

// The index of the pool's remote tier in pool.kv_tiers, or -1.
int32_t remote_tier_index(const PoolSpec& pool);

}  // namespace tidal::sim
