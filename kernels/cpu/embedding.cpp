#include "kernels/cpu/embedding.h"

#include <cstring>

namespace tidal::kernels::reference {

void embedding(const float* table, int64_t hidden, const int32_t* token_ids, int64_t num_tokens,
               float* out) {
  for (int64_t t = 0; t < num_tokens; ++t) {
    for (int64_t i = 0; i < hidden; ++i) out[t * hidden + i] = table[token_ids[t] * hidden + i];
  }
}

}  // namespace tidal::kernels::reference

namespace tidal::kernels::cpu {

void embedding(ThreadPool& pool, const float* table, int64_t hidden, const int32_t* token_ids,
               int64_t num_tokens, float* out) {
  pool.parallel_for(num_tokens, 16, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      std::memcpy(out + t * hidden, table + static_cast<int64_t>(token_ids[t]) * hidden,
                  hidden * sizeof(float));
    }
  });
}

}  // namespace tidal::kernels::cpu
