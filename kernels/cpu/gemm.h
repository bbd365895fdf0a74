// Linear layers y = x W^T with W row-major [out, in] in any WeightFormat.
//   reference: one plain dot product per output, weights dequantized element by element.
//   cpu, GemmPath::batch_invariant (default): every output is one fixed-order vector dot
//        product of its token row and weight row (int8: per group, then scaled), computed in
//        register tiles; a token's outputs are the same bits whatever else is in the batch
//        and whatever the thread count, so chunked prefill, speculative verification and
//        plain decoding agree exactly. Faster than Eigen here too (Eigen gets SSE2 only
//        without -march).
//   cpu, GemmPath::eigen: fp32 through Eigen in fixed 64-row blocks; int8 / fp8 with more
//        than 4 tokens dequantize 32-row tiles and multiply them with Eigen. Results depend on
//        the number of tokens in the batch (not on the thread count).
#pragma once

#include <cstdint>

#include "kernels/linear_weight.h"
#include "kernels/thread_pool.h"

namespace tidal::kernels::reference {
void linear(const float* x,  // [num_tokens, weight.cols]
            int64_t num_tokens, const LinearView& weight,
            float* y);  // [num_tokens, weight.rows]
}  // namespace tidal::kernels::reference

namespace tidal::kernels::cpu {

enum class GemmPath : uint8_t { batch_invariant, eigen };

const char* gemm_path_name(GemmPath path);

void linear(ThreadPool& pool, const float* x, int64_t num_tokens, const LinearView& weight,
            float* y, GemmPath path = GemmPath::batch_invariant);
// The fp32 path on its own, for weights already [rows, cols] floats.
void linear_f32(ThreadPool& pool, const float* x, int64_t num_tokens, const float* weight,
                int64_t rows, int64_t cols, float* y, GemmPath path);
// Single-threaded block product y[t, 0:num_rows] = x[t, :] . weight_rows[r, :] for every t,
// with output row stride y_stride (Eigen): the building block of the threaded paths.
void gemm_block_f32(const float* x,  // [num_tokens, cols]
                    int64_t num_tokens, int64_t cols,
                    const float* weight_rows,  // [num_rows, cols]
                    int64_t num_rows,
                    float* y,  // [num_tokens, y_stride], columns 0..num_rows-1 written
                    int64_t y_stride);
// The quantized paths (gemm_quantized.cpp).
void linear_int8(ThreadPool& pool, const float* x, int64_t num_tokens, const LinearView& weight,
                 float* y, GemmPath path);
void linear_fp8(ThreadPool& pool, const float* x, int64_t num_tokens, const LinearView& weight,
                float* y, GemmPath path);
// bf16 / fp16 weights widened to fp32 a few rows at a time (gemm_half.cpp): the same bits as
// linear_f32 on the widened weights, on either path.
void linear_half(ThreadPool& pool, const float* x, int64_t num_tokens, const LinearView& weight,
                 float* y, GemmPath path);
}  // namespace tidal::kernels::cpu
