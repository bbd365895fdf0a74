// bf16 / fp16 weights on the CPU: rows widened to fp32 into cache, then the fp32 kernels on the
// same row blocks as linear_f32 (64-row blocks with Eigen, fixed-order dot tiles otherwise), so
// the result is bit for bit that of the fp32 linear on the widened weights.
#include <algorithm>
#include <vector>

#include "kernels/cpu/gemm.h"
#include "kernels/cpu/vector_ops.h"
#include "kernels/numeric/bf16.h"
#include "kernels/numeric/fp16.h"

namespace tidal::kernels::cpu {

namespace {

constexpr int64_t kEigenRowsPerBlock = 64;  // linear_f32's Eigen blocks
constexpr int64_t kMinRowsPerRange = 16;
constexpr int64_t kRowsPerWiden = 16;
constexpr int64_t kTokensPerPass = 64;

void widen_rows(const LinearView& w, int64_t first_row, int64_t num_rows,
                float* out) {  // out: [num_rows, cols]
  const auto* bits = static_cast<const uint16_t*>(w.data) + first_row * w.cols;
  const int64_t count = num_rows * w.cols;
  if (w.format == WeightFormat::bf16) {
    for (int64_t i = 0; i < count; ++i) out[i] = bf16_to_float(bits[i]);
  } else {
    for (int64_t i = 0; i < count; ++i) out[i] = fp16_to_float(bits[i]);
  }
}

}  // namespace

void linear_half(ThreadPool& pool, const float* x, int64_t num_tokens, const LinearView& w,
                 float* y, GemmPath path) {
  if (path == GemmPath::eigen) {
    pool.parallel_for_blocks(w.rows, kEigenRowsPerBlock, [&](int64_t begin, int64_t end) {
      std::vector<float> block((end - begin) * w.cols);  // [rows of this block, cols]
      widen_rows(w, begin, end - begin, block.data());
      gemm_block_f32(x, num_tokens, w.cols, block.data(), end - begin, y + begin, w.rows);
    });
    return;
  }
  pool.parallel_for(w.rows, kMinRowsPerRange, [&](int64_t begin, int64_t end) {
    std::vector<float> rows(kRowsPerWiden * w.cols);  // [16, cols] widened weight rows
    for (int64_t row = begin; row < end; row += kRowsPerWiden) {
      const int64_t count = std::min(kRowsPerWiden, end - row);
      widen_rows(w, row, count, rows.data());
      for (int64_t first = 0; first < num_tokens; first += kTokensPerPass) {
        const int64_t tokens = std::min(kTokensPerPass, num_tokens - first);
        dot_tile_gemm(x + first * w.cols, tokens, rows.data(), count, w.cols,
                      y + first * w.rows + row, w.rows);
      }
    }
  });
}

}  // namespace tidal::kernels::cpu
