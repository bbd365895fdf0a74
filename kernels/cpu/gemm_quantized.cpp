// Weight-only quantized GEMM. With few tokens (decode) the weight stream dominates: each
// weight row is read once and dotted with every token straight from its codes. With many
// tokens (prefill) a tile of rows is dequantized into cache and multiplied with Eigen.
#include <algorithm>
#include <vector>

#include "kernels/cpu/gemm.h"
#include "kernels/cpu/vector_ops.h"
#include "kernels/numeric/fp8_e4m3.h"

namespace tidal::kernels::cpu {

namespace {

constexpr int64_t kFusedMaxTokens = 4;
constexpr int64_t kTileRows = 32;
constexpr int64_t kMinRowsPerRange = 32;

float int8_row_dot(const float* x, const int8_t* codes, const float* scales, int64_t cols,
                   int64_t group_size) {
  float acc = 0.0f;
  for (int64_t start = 0, g = 0; start < cols; start += group_size, ++g) {
    acc += scales[g] * dot_int8(x + start, codes + start, group_size);
  }
  return acc;
}

void dequantize_int8_rows(const LinearView& w, int64_t first_row, int64_t num_rows,
                          float* out) {  // out: [num_rows, cols]
  const auto* codes = static_cast<const int8_t*>(w.data);
  const int64_t num_groups = w.num_groups();
  for (int64_t r = 0; r < num_rows; ++r) {
    const int64_t row = first_row + r;
    for (int64_t g = 0; g < num_groups; ++g) {
      dequantize_int8(codes + row * w.cols + g * w.group_size, w.scales[row * num_groups + g],
                      w.group_size, out + r * w.cols + g * w.group_size);
    }
  }
}

void decode_fp8_row(const uint8_t* codes, int64_t cols, float scale, float* out) {
  const float* table = fp8_e4m3_table();
  for (int64_t c = 0; c < cols; ++c) out[c] = table[codes[c]] * scale;
}

// Dequantizes kTileRows rows at a time into a cached tile, then Eigen.
template <typename DequantizeRows>
void tiled_linear(ThreadPool& pool, const float* x, int64_t num_tokens, const LinearView& w,
                  float* y, DequantizeRows dequantize_rows) {
  // Fixed tiles (see ThreadPool::parallel_for_blocks): the same bytes at every thread count.
  pool.parallel_for_blocks(w.rows, kTileRows, [&](int64_t first, int64_t end) {
    std::vector<float> tile((end - first) * w.cols);  // [rows of this tile, cols]
    dequantize_rows(first, end - first, tile.data());
    gemm_block_f32(x, num_tokens, w.cols, tile.data(), end - first, y + first, w.rows);
  });
}

}  // namespace

void linear_int8(ThreadPool& pool, const float* x, int64_t num_tokens, const LinearView& w,
                 float* y) {
  const auto* codes = static_cast<const int8_t*>(w.data);
  const int64_t num_groups = w.num_groups();
  if (num_tokens <= kFusedMaxTokens) {
    pool.parallel_for(w.rows, kMinRowsPerRange, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        for (int64_t t = 0; t < num_tokens; ++t) {
          y[t * w.rows + r] = int8_row_dot(x + t * w.cols, codes + r * w.cols,
                                           w.scales + r * num_groups, w.cols, w.group_size);
        }
      }
    });
    return;
  }
  tiled_linear(pool, x, num_tokens, w, y, [&](int64_t first, int64_t num_rows, float* out) {
    dequantize_int8_rows(w, first, num_rows, out);
  });
}

void linear_fp8(ThreadPool& pool, const float* x, int64_t num_tokens, const LinearView& w,
                float* y) {
  const auto* codes = static_cast<const uint8_t*>(w.data);
  if (num_tokens <= kFusedMaxTokens) {
    pool.parallel_for(w.rows, kMinRowsPerRange, [&](int64_t begin, int64_t end) {
      std::vector<float> row_values(w.cols);  // [cols] one decoded row, reused by every token
      for (int64_t r = begin; r < end; ++r) {
        decode_fp8_row(codes + r * w.cols, w.cols, w.scales[r], row_values.data());
        for (int64_t t = 0; t < num_tokens; ++t) {
          y[t * w.rows + r] = dot(x + t * w.cols, row_values.data(), w.cols);
        }
      }
    });
    return;
  }
  tiled_linear(pool, x, num_tokens, w, y, [&](int64_t first, int64_t num_rows, float* out) {
    for (int64_t r = 0; r < num_rows; ++r) {
      decode_fp8_row(codes + (first + r) * w.cols, w.cols, w.scales[first + r], out + r * w.cols);
    }
  });
}

}  // namespace tidal::kernels::cpu
