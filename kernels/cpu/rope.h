// Rotary position embedding, in place, Hugging Face "rotate half" convention: for i < d/2,
// angle = position * inv_freq[i],
//   x'[i]       = x[i] * cos(angle) - x[i + d/2] * sin(angle)
//   x'[i + d/2] = x[i + d/2] * cos(angle) + x[i] * sin(angle)
#pragma once

#include <cstdint>

#include "kernels/thread_pool.h"

namespace tidal::kernels::reference {
void rope(float* q,                  // [num_tokens, num_heads, head_dim]
          float* k,                  // [num_tokens, num_kv_heads, head_dim]
          const int32_t* positions,  // [num_tokens]
          int64_t num_tokens, int64_t num_heads, int64_t num_kv_heads, int64_t head_dim,
          const float* inv_freq);  // [head_dim / 2]
}  // namespace tidal::kernels::reference

namespace tidal::kernels::cpu {
void rope(ThreadPool& pool, float* q, float* k, const int32_t* positions, int64_t num_tokens,
          int64_t num_heads, int64_t num_kv_heads, int64_t head_dim, const float* inv_freq);
}  // namespace tidal::kernels::cpu
