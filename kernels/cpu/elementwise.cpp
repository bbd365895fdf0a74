#include "kernels/cpu/elementwise.h"

#include <cmath>
#include <cstring>

namespace tidal::kernels {

namespace {

float silu_times(float gate, float up) {
  return gate / (1.0f + std::exp(-gate)) * up;
}

}  // namespace

namespace reference {

void swiglu(const float* gate, const float* up, int64_t count, float* out) {
  for (int64_t i = 0; i < count; ++i) out[i] = silu_times(gate[i], up[i]);
}

void add(float* y, const float* x, int64_t count) {
  for (int64_t i = 0; i < count; ++i) y[i] += x[i];
}

void gather_rows(const float* src, const int32_t* rows, int64_t num_rows, int64_t dim, float* out) {
  for (int64_t i = 0; i < num_rows; ++i) {
    for (int64_t j = 0; j < dim; ++j) out[i * dim + j] = src[rows[i] * dim + j];
  }
}

void scatter_add_rows(const float* src, const int32_t* rows, const float* weights, int64_t num_rows,
                      int64_t dim, float* dst) {
  for (int64_t i = 0; i < num_rows; ++i) {
    for (int64_t j = 0; j < dim; ++j) dst[rows[i] * dim + j] += weights[i] * src[i * dim + j];
  }
}

}  // namespace reference

namespace cpu {

namespace {
constexpr int64_t kMinElementsPerRange = 16384;
}  // namespace

void swiglu(ThreadPool& pool, const float* gate, const float* up, int64_t count, float* out) {
  pool.parallel_for(count, kMinElementsPerRange, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = silu_times(gate[i], up[i]);
  });
}

void add(ThreadPool& pool, float* y, const float* x, int64_t count) {
  pool.parallel_for(count, kMinElementsPerRange, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) y[i] += x[i];
  });
}

void gather_rows(ThreadPool& pool, const float* src, const int32_t* rows, int64_t num_rows,
                 int64_t dim, float* out) {
  pool.parallel_for(num_rows, 16, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      std::memcpy(out + i * dim, src + static_cast<int64_t>(rows[i]) * dim, dim * sizeof(float));
    }
  });
}

void scatter_add_rows(ThreadPool& pool, const float* src, const int32_t* rows, const float* weights,
                      int64_t num_rows, int64_t dim, float* dst) {
  pool.parallel_for(dim, 256, [&](int64_t begin, int64_t end) {
    for (int64_t i = 0; i < num_rows; ++i) {
      float* dst_row = dst + static_cast<int64_t>(rows[i]) * dim;
      const float* src_row = src + i * dim;
      for (int64_t j = begin; j < end; ++j) dst_row[j] += weights[i] * src_row[j];
    }
  });
}

}  // namespace cpu

}  // namespace tidal::kernels
