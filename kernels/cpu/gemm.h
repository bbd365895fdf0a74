// Linear layers y = x W^T with W row-major [out, in] in any WeightFormat.
//   reference: one plain dot product per output, weights dequantized element by element.
//   cpu:       fp32 through Eigen, split over output rows; int8 and fp8 through fused
//              dequantize-dot GEMV kernels (few tokens) or dequantized tiles + Eigen (many).
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
void linear(ThreadPool& pool, const float* x, int64_t num_tokens, const LinearView& weight,
            float* y);
// The fp32 path on its own (Eigen), for weights already [rows, cols] floats.
void linear_f32(ThreadPool& pool, const float* x, int64_t num_tokens, const float* weight,
                int64_t rows, int64_t cols, float* y);
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
                 float* y);
void linear_fp8(ThreadPool& pool, const float* x, int64_t num_tokens, const LinearView& weight,
                float* y);
}  // namespace tidal::kernels::cpu
