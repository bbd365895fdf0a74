// Row-wise softmax in place (max-subtracted).
#pragma once

#include <cstdint>

#include "kernels/thread_pool.h"

namespace tidal::kernels::reference {
void softmax(float* x,  // [num_rows, num_cols]
             int64_t num_rows, int64_t num_cols);
// The same computed in double and rounded once: what a kernel should match when a running fp32
// sum over a long row (the function above: up to num_cols * 2^-24 relative) is too coarse.
void softmax_in_double(const float* x,  // [num_rows, num_cols]
                       int64_t num_rows, int64_t num_cols,
                       float* out);  // [num_rows, num_cols]
}  // namespace tidal::kernels::reference

namespace tidal::kernels::cpu {
void softmax(ThreadPool& pool, float* x, int64_t num_rows, int64_t num_cols);
}  // namespace tidal::kernels::cpu
