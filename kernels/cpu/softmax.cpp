#include "kernels/cpu/softmax.h"

#include <algorithm>
#include <cmath>

namespace tidal::kernels {

namespace reference {

void softmax(float* x, int64_t num_rows, int64_t num_cols) {
  for (int64_t r = 0; r < num_rows; ++r) {
    float* row = x + r * num_cols;
    float max_value = row[0];
    for (int64_t i = 1; i < num_cols; ++i) max_value = std::max(max_value, row[i]);
    float sum = 0.0f;
    for (int64_t i = 0; i < num_cols; ++i) {
      row[i] = std::exp(row[i] - max_value);
      sum += row[i];
    }
    for (int64_t i = 0; i < num_cols; ++i) row[i] /= sum;
  }
}

void softmax_in_double(const float* x, int64_t num_rows, int64_t num_cols, float* out) {
  for (int64_t r = 0; r < num_rows; ++r) {
    const float* row = x + r * num_cols;
    const double max_value = *std::max_element(row, row + num_cols);
    double sum = 0.0;
    for (int64_t i = 0; i < num_cols; ++i) sum += std::exp(row[i] - max_value);
    for (int64_t i = 0; i < num_cols; ++i) {
      out[r * num_cols + i] = static_cast<float>(std::exp(row[i] - max_value) / sum);
    }
  }
}

}  // namespace reference

namespace cpu {

void softmax(ThreadPool& pool, float* x, int64_t num_rows, int64_t num_cols) {
  pool.parallel_for(num_rows, 4, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      float* row = x + r * num_cols;
      const float max_value = *std::max_element(row, row + num_cols);
      float sum = 0.0f;
      for (int64_t i = 0; i < num_cols; ++i) {
        row[i] = std::exp(row[i] - max_value);
        sum += row[i];
      }
      const float inv_sum = 1.0f / sum;
      for (int64_t i = 0; i < num_cols; ++i) row[i] *= inv_sum;
    }
  });
}

}  // namespace cpu

}  // namespace tidal::kernels
