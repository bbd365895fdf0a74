// bf16 / fp16 weight GEMV for decode-sized batches: y = round_half(x) W^T with fp32 x read
// directly (rounded to the weight type in registers, as the cuBLAS path rounds it in a separate
// kernel). A warp computes kRows consecutive output rows for up to kTokens tokens; each lane
// reads 8 weights per 16-byte load and issues kRows x kSteps of them before using any, so enough
// bytes are in flight to stream the weights at HBM bandwidth, and rounds its 8 x values once for
// all kRows rows.
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
// 16-byte weight loads in flight per lane: kRows x kSteps (on an H200, 8 ran slower than 4).
constexpr int kLoadsInFlight = 4;

__device__ inline float half_to_float(uint16_t bits, bool bf16) {
  return bf16 ? __bfloat162float(__ushort_as_bfloat16(bits)) : __half2float(__ushort_as_half(bits));
}

__device__ inline float round_to_half(float x, bool bf16) {
  return bf16 ? __bfloat162float(__float2bfloat16_rn(x)) : __half2float(__float2half_rn(x));
}

// The 8 weights of a 16-byte load as fp32.
__device__ inline void unpack8(const uint4& packed, bool bf16, float* w) {
  const uint32_t words[4] = {packed.x, packed.y, packed.z, packed.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    if (bf16) {
      w[2 * i] = __uint_as_float(words[i] << 16);
      w[2 * i + 1] = __uint_as_float(words[i] & 0xffff0000u);
    } else {
      w[2 * i] = __half2float(__ushort_as_half(static_cast<uint16_t>(words[i] & 0xffffu)));
      w[2 * i + 1] = __half2float(__ushort_as_half(static_cast<uint16_t>(words[i] >> 16)));
    }
  }
}

// Vectorized path: cols % 8 == 0 and x, weight 16-byte aligned. Grid (ceil(rows / (kWarps *
// kRows)), ceil(num_tokens / kTokens)).
template <int kRows>
__global__ void __launch_bounds__(kWarps * 32)
    half_gemv_vector_kernel(const float* x, int64_t num_tokens, const uint16_t* weight,
                            int64_t rows, int64_t cols, bool bf16, float* y) {
  constexpr int kSteps = kLoadsInFlight / kRows;
  const int lane = threadIdx.x % 32;
  const int64_t r0 = (static_cast<int64_t>(blockIdx.x) * kWarps + threadIdx.x / 32) * kRows;
  const int64_t t0 = static_cast<int64_t>(blockIdx.y) * kTokens;
  if (r0 >= rows) return;
  const int num_t = static_cast<int>(min_i64(kTokens, num_tokens - t0));
  const int num_r = static_cast<int>(min_i64(kRows, rows - r0));
  const int64_t num_steps = (cols + 32 * kPerLoad - 1) / (32 * kPerLoad);
  const uint16_t* row_weights[kRows];
#pragma unroll
  for (int r = 0; r < kRows; ++r) row_weights[r] = weight + (r0 + r) * cols;
  float acc[kRows][kTokens] = {};
  for (int64_t s0 = 0; s0 < num_steps; s0 += kSteps) {
    uint4 packed[kSteps][kRows];
#pragma unroll
    for (int s = 0; s < kSteps; ++s) {
      const int64_t c = (s0 + s) * 32 * kPerLoad + lane * kPerLoad;
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        packed[s][r] = (c < cols && r < num_r) ? *reinterpret_cast<const uint4*>(row_weights[r] + c)
                                               : make_uint4(0, 0, 0, 0);
      }
    }
#pragma unroll
    for (int s = 0; s < kSteps; ++s) {
      const int64_t c = (s0 + s) * 32 * kPerLoad + lane * kPerLoad;
      if (c >= cols) break;
      float w[kRows][kPerLoad];
#pragma unroll
      for (int r = 0; r < kRows; ++r) unpack8(packed[s][r], bf16, w[r]);
#pragma unroll
      for (int t = 0; t < kTokens; ++t) {
        if (t >= num_t) break;
        const float4* xv = reinterpret_cast<const float4*>(x + (t0 + t) * cols + c);
        const float4 a = xv[0];
        const float4 b = xv[1];
        const float xs[kPerLoad] = {round_to_half(a.x, bf16), round_to_half(a.y, bf16),
                                    round_to_half(a.z, bf16), round_to_half(a.w, bf16),
                                    round_to_half(b.x, bf16), round_to_half(b.y, bf16),
                                    round_to_half(b.z, bf16), round_to_half(b.w, bf16)};
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
#pragma unroll
          for (int i = 0; i < kPerLoad; ++i) acc[r][t] += xs[i] * w[r][i];
        }
      }
    }
  }
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
#pragma unroll
    for (int t = 0; t < kTokens; ++t) {
      if (t >= num_t) break;
      const float total = warp_sum(acc[r][t]);
      if (lane == 0 && r < num_r) y[(t0 + t) * rows + r0 + r] = total;
    }
  }
}

// Any shape: one warp per output row, element by element.
__global__ void __launch_bounds__(kWarps * 32)
    half_gemv_scalar_kernel(const float* x, int64_t num_tokens, const uint16_t* weight,
                            int64_t rows, int64_t cols, bool bf16, float* y) {
  const int lane = threadIdx.x % 32;
  const int64_t r = static_cast<int64_t>(blockIdx.x) * kWarps + threadIdx.x / 32;
  const int64_t t0 = static_cast<int64_t>(blockIdx.y) * kTokens;
  if (r >= rows) return;
  const int64_t num_t = min_i64(kTokens, num_tokens - t0);
  const uint16_t* row = weight + r * cols;
  float acc[kTokens] = {};
  for (int64_t c = lane; c < cols; c += 32) {
    const float w = half_to_float(row[c], bf16);
    for (int t = 0; t < kTokens; ++t) {
      if (t >= num_t) break;
      acc[t] += round_to_half(x[(t0 + t) * cols + c], bf16) * w;
    }
  }
#pragma unroll
  for (int t = 0; t < kTokens; ++t) {
    if (t >= num_t) break;
    const float total = warp_sum(acc[t]);
    if (lane == 0) y[(t0 + t) * rows + r] = total;
  }
}

template <int kRows>
void launch_vector(const float* x, int64_t num_tokens, const uint16_t* weight, bool bf16,
                   int64_t rows, int64_t cols, float* y, cudaStream_t stream) {
  const int64_t rows_per_block = kWarps * kRows;
  const dim3 grid(static_cast<unsigned>((rows + rows_per_block - 1) / rows_per_block),
                  static_cast<unsigned>((num_tokens + kTokens - 1) / kTokens));
  half_gemv_vector_kernel<kRows>
      <<<grid, kWarps * 32, 0, stream>>>(x, num_tokens, weight, rows, cols, bf16, y);
}

}  // namespace

void launch_half_gemv(const float* x, int64_t num_tokens, const uint16_t* weight, HalfType type,
                      int64_t rows, int64_t cols, float* y, cudaStream_t stream) {
  if (num_tokens == 0) return;
  const bool bf16 = type == HalfType::bf16;
  const bool vectorized = cols % kPerLoad == 0 && reinterpret_cast<uintptr_t>(x) % 16 == 0 &&
                          reinterpret_cast<uintptr_t>(weight) % 16 == 0;
  if (!vectorized) {
    const dim3 grid(static_cast<unsigned>((rows + kWarps - 1) / kWarps),
                    static_cast<unsigned>((num_tokens + kTokens - 1) / kTokens));
    half_gemv_scalar_kernel<<<grid, kWarps * 32, 0, stream>>>(x, num_tokens, weight, rows, cols,
                                                              bf16, y);
  } else if (rows >= 8192) {
    // Enough rows to fill the GPU with two rows per warp: x is read and rounded half as often.
    launch_vector<2>(x, num_tokens, weight, bf16, rows, cols, y, stream);
  } else {
    launch_vector<1>(x, num_tokens, weight, bf16, rows, cols, y, stream);
  }
  TIDAL_CUDA_CHECK_LAUNCH();
}

}  // namespace tidal::kernels::cuda
