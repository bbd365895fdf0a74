// Linear layers through cuBLAS (fp32, bf16, fp16) and cuBLASLt (fp8 e4m3). All matrices are
// row-major as in kernels/linear_weight.h: y [num_tokens, rows] = x [num_tokens, cols] W^T with
// W [rows, cols]. In cuBLAS's column-major terms that is D[rows, num_tokens] = op_T(W) x, the
// "TN" layout cuBLASLt requires for fp8.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>

#include <cstddef>
#include <cstdint>

#include "kernels/cuda/launchers.h"

namespace tidal::kernels::cuda {

// fp32 inputs, fp32 accumulation (CUBLAS_COMPUTE_32F, no TF32).
void gemm_f32(cublasHandle_t handle, const float* x, int64_t num_tokens, const float* weight,
              int64_t rows, int64_t cols, float* y);

// bf16 or fp16 inputs (uint16 storage), fp32 accumulation and fp32 output.
void gemm_half(cublasHandle_t handle, const uint16_t* x, int64_t num_tokens, const uint16_t* weight,
               HalfType type, int64_t rows, int64_t cols, float* y);

// fp8 e4m3 codes for both operands, fp32 accumulation and output (sm_90 only; cols % 16 == 0,
// rows % 4 == 0); scales are applied by the caller.
void gemm_fp8(cublasLtHandle_t handle, const uint8_t* x_codes, int64_t num_tokens,
              const uint8_t* weight_codes, int64_t rows, int64_t cols, float* y, void* workspace,
              size_t workspace_bytes, cudaStream_t stream);

}  // namespace tidal::kernels::cuda
