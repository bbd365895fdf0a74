// KV write by slot mapping: k/v of token t go to slot slot_mapping[t] of `layer`, converted to
// the arena dtype (bf16 rounded to nearest even; int8 with a per-token-per-head scale).
// Slot -1 is padding and skipped.
#pragma once

#include <cstdint>

#include "kernels/kv_cache.h"
#include "kernels/thread_pool.h"

namespace tidal::kernels::reference {
void write_kv(const KvCacheView& kv, int64_t layer,
              const float* k,               // [num_tokens, num_kv_heads, head_dim]
              const float* v,               // [num_tokens, num_kv_heads, head_dim]
              const int64_t* slot_mapping,  // [num_tokens]
              int64_t num_tokens);
// One cached row (head_dim values) back in fp32: [head_dim]
void read_kv_row(const KvCacheView& kv, int64_t layer, int64_t kv_index, int64_t slot, int64_t head,
                 float* out);
}  // namespace tidal::kernels::reference

namespace tidal::kernels::cpu {
void write_kv(ThreadPool& pool, const KvCacheView& kv, int64_t layer, const float* k,
              const float* v, const int64_t* slot_mapping, int64_t num_tokens);
}  // namespace tidal::kernels::cpu
