// bf16 / fp16 weight GEMV for decode-sized batches: y = round_half(x) W^T with fp32 x read
// directly (rounded to the weight type in registers, as the cuBLAS path rounds it in a separate
// kernel), one warp per output row, 8 tokens per pass, 8 weights per 16-byte load.
// Spec: the cuBLAS path of CudaBackend::linear_half (same products, another summation order).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <stdexcept>

#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/launchers.h"

namespace tidal::kernels::cuda {

namespace {

constexpr int kWarps = 4;
constexpr int kTokens = 8;
constexpr int kPerLoad = 8;

__device__ inline float half_to_float(uint16_t bits, bool bf16) {
  return bf16 ? __bfloat162float(__ushort_as_bfloat16(bits)) : __half2float(__ushort_as_half(bits));
}

__device__ inline float round_to_half(float x, bool bf16) {
  return bf16 ? __bfloat162float(__float2bfloat16_rn(x)) : __half2float(__float2half_rn(x));
}

__global__ void __launch_bounds__(kWarps * 32)
    half_gemv_kernel(const float* x, int64_t num_tokens, const uint16_t* weight, int64_t rows,
                     int64_t cols, bool bf16, float* y, bool vectorized) {
  const int lane = threadIdx.x % 32;
  const int64_t r = static_cast<int64_t>(blockIdx.x) * kWarps + threadIdx.x / 32;
  const int64_t t0 = static_cast<int64_t>(blockIdx.y) * kTokens;
  if (r >= rows) return;
  const int64_t num_t = min_i64(kTokens, num_tokens - t0);
  const uint16_t* row = weight + r * cols;
  float acc[kTokens] = {};
  if (vectorized) {
    for (int64_t c0 = static_cast<int64_t>(lane) * kPerLoad; c0 < cols; c0 += 32 * kPerLoad) {
      const uint4 packed = *reinterpret_cast<const uint4*>(row + c0);
      const uint16_t* bits = reinterpret_cast<const uint16_t*>(&packed);
      float w[kPerLoad];
#pragma unroll
      for (int i = 0; i < kPerLoad; ++i) w[i] = half_to_float(bits[i], bf16);
#pragma unroll
      for (int t = 0; t < kTokens; ++t) {
        if (t >= num_t) break;
        const float4* xv = reinterpret_cast<const float4*>(x + (t0 + t) * cols + c0);
        const float4 a = xv[0];
        const float4 b = xv[1];
        acc[t] += round_to_half(a.x, bf16) * w[0] + round_to_half(a.y, bf16) * w[1] +
                  round_to_half(a.z, bf16) * w[2] + round_to_half(a.w, bf16) * w[3] +
                  round_to_half(b.x, bf16) * w[4] + round_to_half(b.y, bf16) * w[5] +
                  round_to_half(b.z, bf16) * w[6] + round_to_half(b.w, bf16) * w[7];
      }
    }
  } else {
    for (int64_t c = lane; c < cols; c += 32) {
      const float w = half_to_float(row[c], bf16);
      for (int t = 0; t < kTokens; ++t) {
        if (t >= num_t) break;
        acc[t] += round_to_half(x[(t0 + t) * cols + c], bf16) * w;
      }
    }
  }
#pragma unroll
  for (int t = 0; t < kTokens; ++t) {
    if (t >= num_t) break;
    const float total = warp_sum(acc[t]);
    if (lane == 0) y[(t0 + t) * rows + r] = total;
  }
}

}  // namespace

void launch_half_gemv(const float* x, int64_t num_tokens, const uint16_t* weight, HalfType type,
                      int64_t rows, int64_t cols, float* y, cudaStream_t stream) {
  if (num_tokens == 0) return;
  const bool vectorized = cols % kPerLoad == 0 && reinterpret_cast<uintptr_t>(x) % 16 == 0 &&
                          reinterpret_cast<uintptr_t>(weight) % 16 == 0;
  const dim3 grid(static_cast<unsigned>((rows + kWarps - 1) / kWarps),
                  static_cast<unsigned>((num_tokens + kTokens - 1) / kTokens));
  half_gemv_kernel<<<grid, kWarps * 32, 0, stream>>>(x, num_tokens, weight, rows, cols,
                                                     type == HalfType::bf16, y, vectorized);
  TIDAL_CUDA_CHECK_LAUNCH();
}

}  // namespace tidal::kernels::cuda
