#include "kernels/cpu/rms_norm.h"

#include <cmath>

#include "kernels/cpu/vector_ops.h"

namespace tidal::kernels::reference {

void rms_norm(const float* x, const float* weight, int64_t num_rows, int64_t dim, float eps,
              float* out) {
  for (int64_t r = 0; r < num_rows; ++r) {
    const float* row = x + r * dim;
    float sum_sq = 0.0f;
    for (int64_t i = 0; i < dim; ++i) sum_sq += row[i] * row[i];
    const float inv_rms = 1.0f / std::sqrt(sum_sq / static_cast<float>(dim) + eps);
    for (int64_t i = 0; i < dim; ++i) out[r * dim + i] = row[i] * inv_rms * weight[i];
  }
}

void add_rms_norm(float* residual, const float* x, const float* weight, int64_t num_rows,
                  int64_t dim, float eps, float* out) {
  for (int64_t i = 0; i < num_rows * dim; ++i) residual[i] += x[i];
  rms_norm(residual, weight, num_rows, dim, eps, out);
}

}  // namespace tidal::kernels::reference

namespace tidal::kernels::cpu {

namespace {

void normalize_row(const float* row, const float* weight, int64_t dim, float eps, float* out) {
  const float inv_rms = 1.0f / std::sqrt(sum_squares(row, dim) / static_cast<float>(dim) + eps);
  for (int64_t i = 0; i < dim; ++i) out[i] = row[i] * inv_rms * weight[i];
}

}  // namespace

void rms_norm(ThreadPool& pool, const float* x, const float* weight, int64_t num_rows, int64_t dim,
              float eps, float* out) {
  pool.parallel_for(num_rows, 8, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r)
      normalize_row(x + r * dim, weight, dim, eps, out + r * dim);
  });
}

void add_rms_norm(ThreadPool& pool, float* residual, const float* x, const float* weight,
                  int64_t num_rows, int64_t dim, float eps, float* out) {
  pool.parallel_for(num_rows, 8, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      float* row = residual + r * dim;
      for (int64_t i = 0; i < dim; ++i) row[i] += x[r * dim + i];
      normalize_row(row, weight, dim, eps, out + r * dim);
    }
  });
}

}  // namespace tidal::kernels::cpu
