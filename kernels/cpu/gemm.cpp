#include "kernels/cpu/gemm.h"

#include <algorithm>

#include <Eigen/Core>

#include "kernels/cpu/vector_ops.h"
#include "kernels/numeric/fp8_e4m3.h"

namespace tidal::kernels {

namespace reference {

namespace {

float weight_value(const LinearView& w, int64_t row, int64_t col) {
  const int64_t index = row * w.cols + col;
  switch (w.format) {
    case WeightFormat::f32:
      return static_cast<const float*>(w.data)[index];
    case WeightFormat::int8:
      return static_cast<float>(static_cast<const int8_t*>(w.data)[index]) *
             w.scales[row * w.num_groups() + col / w.group_size];
    case WeightFormat::fp8_e4m3:
      return fp8_e4m3_to_float(static_cast<const uint8_t*>(w.data)[index]) *
             w.scales[row * w.num_groups() + col / w.group_size];
    case WeightFormat::bf16:
    case WeightFormat::fp16:
      return half_weight_value(w.format, static_cast<const uint16_t*>(w.data)[index]);
  }
  return 0.0f;
}

}  // namespace

void linear(const float* x, int64_t num_tokens, const LinearView& weight, float* y) {
  for (int64_t t = 0; t < num_tokens; ++t) {
    for (int64_t r = 0; r < weight.rows; ++r) {
      float acc = 0.0f;
      for (int64_t c = 0; c < weight.cols; ++c) {
        acc += x[t * weight.cols + c] * weight_value(weight, r, c);
      }
      y[t * weight.rows + r] = acc;
    }
  }
}

}  // namespace reference

namespace cpu {

namespace {
using RowMajorMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
constexpr int64_t kEigenRowsPerBlock = 64;
constexpr int64_t kMinRowsPerRange = 16;
// Tokens per pass over a range of weight rows: [64, cols] of activations stay in L2.
constexpr int64_t kTokensPerPass = 64;
}  // namespace

const char* gemm_path_name(GemmPath path) {
  return path == GemmPath::batch_invariant ? "batch_invariant" : "eigen";
}

void gemm_block_f32(const float* x, int64_t num_tokens, int64_t cols, const float* weight_rows,
                    int64_t num_rows, float* y, int64_t y_stride) {
  const Eigen::Map<const RowMajorMatrix> x_map(x, num_tokens, cols);
  const Eigen::Map<const RowMajorMatrix> w_map(weight_rows, num_rows, cols);
  Eigen::Map<RowMajorMatrix, 0, Eigen::OuterStride<>> y_map(y, num_tokens, num_rows,
                                                            Eigen::OuterStride<>(y_stride));
  y_map.noalias() = x_map * w_map.transpose();
}

void linear_f32(ThreadPool& pool, const float* x, int64_t num_tokens, const float* weight,
                int64_t rows, int64_t cols, float* y, GemmPath path) {
  if (path == GemmPath::eigen) {
    // Fixed 64-row blocks: Eigen's arithmetic depends on the block shape, so fixed blocks give
    // the same bytes at every thread count.
    pool.parallel_for_blocks(rows, kEigenRowsPerBlock, [&](int64_t begin, int64_t end) {
      gemm_block_f32(x, num_tokens, cols, weight + begin * cols, end - begin, y + begin, rows);
    });
    return;
  }
  pool.parallel_for(rows, kMinRowsPerRange, [&](int64_t begin, int64_t end) {
    for (int64_t first = 0; first < num_tokens; first += kTokensPerPass) {
      const int64_t count = std::min(kTokensPerPass, num_tokens - first);
      dot_tile_gemm(x + first * cols, count, weight + begin * cols, end - begin, cols,
                    y + first * rows + begin, rows);
    }
  });
}

void linear(ThreadPool& pool, const float* x, int64_t num_tokens, const LinearView& weight,
            float* y, GemmPath path) {
  switch (weight.format) {
    case WeightFormat::f32:
      linear_f32(pool, x, num_tokens, static_cast<const float*>(weight.data), weight.rows,
                 weight.cols, y, path);
      return;
    case WeightFormat::int8:
      linear_int8(pool, x, num_tokens, weight, y, path);
      return;
    case WeightFormat::fp8_e4m3:
      linear_fp8(pool, x, num_tokens, weight, y, path);
      return;
    case WeightFormat::bf16:
    case WeightFormat::fp16:
      linear_half(pool, x, num_tokens, weight, y, path);
      return;
  }
}

}  // namespace cpu

}  // namespace tidal::kernels
