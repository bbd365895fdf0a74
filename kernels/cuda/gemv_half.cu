// bf16 / fp16 weight GEMV for decode-sized batches: y = round_half(x) W^T with fp32 x read
// directly (rounded to the weight type in registers, as the cuBLAS path rounds it in a separate
// kernel). A warp computes kRows consecutive output rows for up to kTokens tokens; each lane
// reads 8 weights per 16-byte load and issues kRows x kSteps of them before using any, so enough
// bytes are in flight to stream the weights at HBM bandwidth, and rounds its 8 x values once for
// all kRows rows. The activations are fp32 (rounded in registers) or already half (the fused
// decode path: a norm or SwiGLU that wrote half); with the SwiGLU epilogue a warp's two rows are
// the (gate, up) pair of the interleaved gate/up weight and it stores silu(gate) * up instead.
// Spec: the cuBLAS path of CudaBackend::linear_half (same products, another summation order);
// the epilogue's, reference::swiglu_pairs(_to_half).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <stdexcept>

#include "kernels/cuda/activation_store.cuh"
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

// The 8 activations at column c of token row `x_row` as fp32: fp32 rounded to the weight type, or
// half bits widened.
template <bool kHalfX>
__device__ inline void load_x8(const void* x_row, int64_t c, bool bf16, float* xs) {
  if constexpr (kHalfX) {
    unpack8(*reinterpret_cast<const uint4*>(static_cast<const uint16_t*>(x_row) + c), bf16, xs);
  } else {
    const float4* xv = reinterpret_cast<const float4*>(static_cast<const float*>(x_row) + c);
    const float4 a = xv[0];
    const float4 b = xv[1];
    const float values[kPerLoad] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
#pragma unroll
    for (int i = 0; i < kPerLoad; ++i) xs[i] = round_to_half(values[i], bf16);
  }
}

template <bool kHalfX>
__device__ inline const void* x_row_of(const void* x, int64_t t, int64_t cols) {
  if constexpr (kHalfX) return static_cast<const uint16_t*>(x) + t * cols;
  return static_cast<const float*>(x) + t * cols;
}

// Vectorized path: cols % 8 == 0 and x, weight 16-byte aligned. Grid (ceil(rows / (kWarps *
// kRows)), ceil(num_tokens / kTokens)). kSwiglu needs kRows == 2 and even rows; it stores
// rows / 2 outputs per token.
template <int kRows, bool kHalfX, bool kSwiglu, typename Store>
__global__ void __launch_bounds__(kWarps * 32)
    half_gemv_vector_kernel(const void* x, int64_t num_tokens, const uint16_t* weight, int64_t rows,
                            int64_t cols, bool bf16, Store store) {
  static_assert(!kSwiglu || kRows == 2, "the SwiGLU epilogue pairs two rows");
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
        float xs[kPerLoad];
        load_x8<kHalfX>(x_row_of<kHalfX>(x, t0 + t, cols), c, bf16, xs);
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
#pragma unroll
          for (int i = 0; i < kPerLoad; ++i) acc[r][t] += xs[i] * w[r][i];
        }
      }
    }
  }
  if constexpr (kSwiglu) {
#pragma unroll
    for (int t = 0; t < kTokens; ++t) {
      if (t >= num_t) break;
      const float gate = warp_sum(acc[0][t]);
      const float up = warp_sum(acc[1][t]);
      if (lane == 0) store((t0 + t) * (rows / 2) + r0 / 2, gate / (1.0f + expf(-gate)) * up);
    }
  } else {
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
#pragma unroll
      for (int t = 0; t < kTokens; ++t) {
        if (t >= num_t) break;
        const float total = warp_sum(acc[r][t]);
        if (lane == 0 && r < num_r) store((t0 + t) * rows + r0 + r, total);
      }
    }
  }
}

// Any shape: one warp per output row, element by element (no epilogue).
template <bool kHalfX>
__global__ void __launch_bounds__(kWarps * 32)
    half_gemv_scalar_kernel(const void* x, int64_t num_tokens, const uint16_t* weight, int64_t rows,
                            int64_t cols, bool bf16, float* y) {
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
      const int64_t i = (t0 + t) * cols + c;
      const float xv = kHalfX ? half_to_float(static_cast<const uint16_t*>(x)[i], bf16)
                              : round_to_half(static_cast<const float*>(x)[i], bf16);
      acc[t] += xv * w;
    }
  }
#pragma unroll
  for (int t = 0; t < kTokens; ++t) {
    if (t >= num_t) break;
    const float total = warp_sum(acc[t]);
    if (lane == 0) y[(t0 + t) * rows + r] = total;
  }
}

template <int kRows, bool kHalfX, bool kSwiglu, typename Store>
void launch_vector(const void* x, int64_t num_tokens, const uint16_t* weight, bool bf16,
                   int64_t rows, int64_t cols, Store store, cudaStream_t stream) {
  const int64_t rows_per_block = kWarps * kRows;
  const dim3 grid(static_cast<unsigned>((rows + rows_per_block - 1) / rows_per_block),
                  static_cast<unsigned>((num_tokens + kTokens - 1) / kTokens));
  half_gemv_vector_kernel<kRows, kHalfX, kSwiglu, Store>
      <<<grid, kWarps * 32, 0, stream>>>(x, num_tokens, weight, rows, cols, bf16, store);
}

template <bool kHalfX>
void launch_plain(const void* x, int64_t num_tokens, const uint16_t* weight, bool bf16,
                  int64_t rows, int64_t cols, float* y, cudaStream_t stream) {
  if (!half_gemv_vectorizable(x, weight, cols)) {
    const dim3 grid(static_cast<unsigned>((rows + kWarps - 1) / kWarps),
                    static_cast<unsigned>((num_tokens + kTokens - 1) / kTokens));
    half_gemv_scalar_kernel<kHalfX>
        <<<grid, kWarps * 32, 0, stream>>>(x, num_tokens, weight, rows, cols, bf16, y);
  } else if (rows >= 8192) {
    // Enough rows to fill the GPU with two rows per warp: x is read and rounded half as often.
    launch_vector<2, kHalfX, false>(x, num_tokens, weight, bf16, rows, cols, StoreF32{y}, stream);
  } else {
    launch_vector<1, kHalfX, false>(x, num_tokens, weight, bf16, rows, cols, StoreF32{y}, stream);
  }
  TIDAL_CUDA_CHECK_LAUNCH();
}

}  // namespace

bool half_gemv_vectorizable(const void* x, const uint16_t* weight, int64_t cols) {
  return cols % kPerLoad == 0 && reinterpret_cast<uintptr_t>(x) % 16 == 0 &&
         reinterpret_cast<uintptr_t>(weight) % 16 == 0;
}

void launch_half_gemv(const float* x, int64_t num_tokens, const uint16_t* weight, HalfType type,
                      int64_t rows, int64_t cols, float* y, cudaStream_t stream) {
  if (num_tokens == 0) return;
  launch_plain<false>(x, num_tokens, weight, type == HalfType::bf16, rows, cols, y, stream);
}

void launch_half_gemv_from_half(const uint16_t* x, int64_t num_tokens, const uint16_t* weight,
                                HalfType type, int64_t rows, int64_t cols, float* y,
                                cudaStream_t stream) {
  if (num_tokens == 0) return;
  launch_plain<true>(x, num_tokens, weight, type == HalfType::bf16, rows, cols, y, stream);
}

void launch_half_gemv_swiglu(const uint16_t* x, int64_t num_tokens, const uint16_t* gate_up,
                             HalfType type, int64_t intermediate, int64_t cols, uint16_t* out,
                             cudaStream_t stream) {
  if (num_tokens == 0) return;
  if (!half_gemv_vectorizable(x, gate_up, cols)) {
    throw std::invalid_argument(
        "half GEMV SwiGLU epilogue: needs cols % 8 == 0 and 16-byte aligned x and weights");
  }
  const bool bf16 = type == HalfType::bf16;
  launch_vector<2, true, true>(x, num_tokens, gate_up, bf16, 2 * intermediate, cols,
                               StoreHalf{out, bf16}, stream);
  TIDAL_CUDA_CHECK_LAUNCH();
}

}  // namespace tidal::kernels::cuda
