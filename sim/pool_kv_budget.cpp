#include "sim/pool_kv_budget.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "base/input_error.h"

namespace tidal::sim {

void recut_kv_blocks(PoolSpec& pool, const std::string& where, const std::string& what) {
  perf::MemoryPlan& m = pool.memory;
  const double block_bytes = m.kv_bytes_per_token_per_gpu * pool.deployment.block_size;
  const double num_blocks =
      std::floor((m.kv_cache_bytes_per_gpu - m.sliding_kv_reserve_bytes - m.state_reserve_bytes) /
                 block_bytes);
  constexpr int32_t kMaxBlocks = std::numeric_limits<int32_t>::max();
  if (!(num_blocks >= 1.0)) {
    throw InputError(fmt::format(
        "{}: {}: {:.2f} GiB per GPU leave no room for one KV block of "
        "{:.1f} KiB",
        where, what, m.kv_cache_bytes_per_gpu / (1024.0 * 1024 * 1024), block_bytes / 1024.0));
  }
  if (num_blocks > static_cast<double>(kMaxBlocks)) {
    throw InputError(
        fmt::format("{}: {}: {:.3g} KV blocks per GPU are more than tidal's block "
                    "tables hold ({}); raise block_size",
                    where, what, num_blocks, kMaxBlocks));
  }
  m.num_kv_blocks_per_rank = static_cast<int64_t>(num_blocks);
  m.num_kv_blocks = m.num_kv_blocks_per_rank * pool.deployment.attention_dp;
}

}  // namespace tidal::sim
