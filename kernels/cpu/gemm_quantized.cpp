// Weight-only quantized GEMM. The batch-invariant path (and the eigen path for few tokens)
// dots activations straight with the codes: int8 per group then scaled, fp8 decoded a few rows
// at a time into cache first. The eigen path with many tokens dequantizes 32-row tiles and
// multiplies them with Eigen.
#include <algorithm>
#include <vector>

#include "kernels/cpu/gemm.h"
#include "kernels/cpu/vector_ops.h"

namespace tidal::kernels::cpu {

namespace {

constexpr int64_t kEigenMinTokens = 5;
constexpr int64_t kTileRows = 32;
constexpr int64_t kMinRowsPerRange = 16;
constexpr int64_t kTokensPerPass = 64;
constexpr int64_t kFp8RowsPerDecode = 4;

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

void decode_fp8_rows(const LinearView& w, int64_t first_row, int64_t num_rows,
                     float* out) {  // out: [num_rows, cols]
  const auto* codes = static_cast<const uint8_t*>(w.data);
  for (int64_t r = 0; r < num_rows; ++r) {
    decode_fp8_e4m3(codes + (first_row + r) * w.cols, w.scales[first_row + r], w.cols,
                    out + r * w.cols);
  }
}

// Dequantizes fixed 32-row tiles into cache, then Eigen (the same bytes at every thread count).
template <typename DequantizeRows>
void tiled_eigen_linear(ThreadPool& pool, const float* x, int64_t num_tokens, const LinearView& w,
                        float* y, DequantizeRows dequantize_rows) {
  pool.parallel_for_blocks(w.rows, kTileRows, [&](int64_t first, int64_t end) {
    std::vector<float> tile((end - first) * w.cols);  // [rows of this tile, cols]
    dequantize_rows(w, first, end - first, tile.data());
    gemm_block_f32(x, num_tokens, w.cols, tile.data(), end - first, y + first, w.rows);
  });
}

}  // namespace

void linear_int8(ThreadPool& pool, const float* x, int64_t num_tokens, const LinearView& w,
                 float* y, GemmPath path) {
  if (path == GemmPath::eigen && num_tokens >= kEigenMinTokens) {
    tiled_eigen_linear(pool, x, num_tokens, w, y, dequantize_int8_rows);
    return;
  }
  const auto* codes = static_cast<const int8_t*>(w.data);
  const int64_t num_groups = w.num_groups();
  pool.parallel_for(w.rows, kMinRowsPerRange, [&](int64_t begin, int64_t end) {
    for (int64_t first = 0; first < num_tokens; first += kTokensPerPass) {
      const int64_t count = std::min(kTokensPerPass, num_tokens - first);
      dot_int8_tile_gemm(x + first * w.cols, count, codes + begin * w.cols,
                         w.scales + begin * num_groups, end - begin, w.cols, w.group_size,
                         y + first * w.rows + begin, w.rows);
    }
  });
}

void linear_fp8(ThreadPool& pool, const float* x, int64_t num_tokens, const LinearView& w, float* y,
                GemmPath path) {
  if (path == GemmPath::eigen && num_tokens >= kEigenMinTokens) {
    tiled_eigen_linear(pool, x, num_tokens, w, y, decode_fp8_rows);
    return;
  }
  pool.parallel_for(w.rows, kMinRowsPerRange, [&](int64_t begin, int64_t end) {
    std::vector<float> rows(kFp8RowsPerDecode * w.cols);  // [4, cols] decoded weight rows
    for (int64_t first = begin; first < end; first += kFp8RowsPerDecode) {
      const int64_t count = std::min(kFp8RowsPerDecode, end - first);
      decode_fp8_rows(w, first, count, rows.data());
      dot_tile_gemm(x, num_tokens, rows.data(), count, w.cols, y + first, w.rows);
    }
  });
}

}  // namespace tidal::kernels::cpu
