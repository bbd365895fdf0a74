// Embedding lookup: out[t, :] = table[token_ids[t], :].
#pragma once

#include <cstdint>

#include "kernels/thread_pool.h"

namespace tidal::kernels::reference {
void embedding(const float* table,  // [vocab, hidden]
               int64_t hidden, const int32_t* token_ids, int64_t num_tokens,
               float* out);  // [num_tokens, hidden]
}  // namespace tidal::kernels::reference

namespace tidal::kernels::cpu {
void embedding(ThreadPool& pool, const float* table, int64_t hidden, const int32_t* token_ids,
               int64_t num_tokens, float* out);
}  // namespace tidal::kernels::cpu
