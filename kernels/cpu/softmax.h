// Row-wise softmax in place (max-subtracted).
#pragma once

#include <cstdint>

#include "kernels/thread_pool.h"

namespace tidal::kernels::reference {
void softmax(float* x,  // [num_rows, num_cols]
             int64_t num_rows, int64_t num_cols);
}  // namespace tidal::kernels::reference

namespace tidal::kernels::cpu {
void softmax(ThreadPool& pool, float* x, int64_t num_rows, int64_t num_cols);
}  // namespace tidal::kernels::cpu
