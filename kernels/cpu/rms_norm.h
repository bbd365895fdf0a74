// RMSNorm, and the fused residual add + RMSNorm:
//   out = x / sqrt(mean(x^2) + eps) * weight
#pragma once

#include <cstdint>

#include "kernels/thread_pool.h"

namespace tidal::kernels::reference {
void rms_norm(const float* x,       // [num_rows, dim]
              const float* weight,  // [dim]
              int64_t num_rows, int64_t dim, float eps,
              float* out);  // [num_rows, dim]
// residual += x; out = rms_norm(residual)
void add_rms_norm(float* residual,  // [num_rows, dim]
                  const float* x,   // [num_rows, dim]
                  const float* weight, int64_t num_rows, int64_t dim, float eps,
                  float* out);  // [num_rows, dim]
}  // namespace tidal::kernels::reference

namespace tidal::kernels::cpu {
void rms_norm(ThreadPool& pool, const float* x, const float* weight, int64_t num_rows, int64_t dim,
              float eps, float* out);
void add_rms_norm(ThreadPool& pool, float* residual, const float* x, const float* weight,
                  int64_t num_rows, int64_t dim, float eps, float* out);
}  // namespace tidal::kernels::cpu
