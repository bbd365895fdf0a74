// Attention over the paged KV cache (see kernels/attention_batch.h), plus the contiguous
// attention every paged version is tested against.
#pragma once

#include <cstdint>

#include "kernels/attention_batch.h"
#include "kernels/kv_cache.h"
#include "kernels/thread_pool.h"

namespace tidal::kernels::reference {
void paged_attention(const float* q,  // [num_tokens, num_heads, head_dim]
                     const KvCacheView& kv, int64_t layer, const AttentionBatch& batch, float scale,
                     float* out);  // [num_tokens, num_heads, head_dim]

// One sequence, contiguous fp32 K/V: the num_new query tokens sit at positions
// context_len - num_new .. context_len - 1 and attend causally over keys 0..their position.
void contiguous_attention(const float* q,  // [num_new, num_heads, head_dim]
                          const float* k,  // [context_len, num_kv_heads, head_dim]
                          const float* v,  // [context_len, num_kv_heads, head_dim]
                          int64_t num_new, int64_t context_len, int64_t num_heads,
                          int64_t num_kv_heads, int64_t head_dim, float scale,
                          float* out);  // [num_new, num_heads, head_dim]
}  // namespace tidal::kernels::reference

namespace tidal::kernels::cpu {
// Splits over (sequence, kv head) pairs; the query heads of a GQA group share each K/V read.
void paged_attention(ThreadPool& pool, const float* q, const KvCacheView& kv, int64_t layer,
                     const AttentionBatch& batch, float scale, float* out);
}  // namespace tidal::kernels::cpu
