// Weight-only int8 linear y = x W^T with one scale per (row, group of group_size columns):
// w[r, c] = code[r, c] * scales[r, c / group_size], dequantized in registers. Spec:
// reference::linear in kernels/cpu/gemm.cpp.
#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/launchers.h"

namespace tidal::kernels::cuda {

namespace {

// ---- variant 1: GEMV, one warp per output row, kGemvTokens tokens per pass ----
constexpr int kGemvWarps = 4;
constexpr int kGemvTokens = 8;
constexpr int kCodesPerLoad = 16;

// vectorized: cols and group_size are multiples of 16 and x is 16-byte aligned, so each lane
// reads 16 codes (one int4) that share one scale.
__global__ void __launch_bounds__(kGemvWarps * 32)
    int8_gemv_kernel(const float* x, int64_t num_tokens, const int8_t* codes, const float* scales,
                     int64_t rows, int64_t cols, int64_t group_size, float* y, bool vectorized) {
  const int lane = threadIdx.x % 32;
  const int64_t r = static_cast<int64_t>(blockIdx.x) * kGemvWarps + threadIdx.x / 32;
  const int64_t t0 = static_cast<int64_t>(blockIdx.y) * kGemvTokens;
  if (r >= rows) return;
  const int64_t num_t = min_i64(kGemvTokens, num_tokens - t0);
  const int8_t* row_codes = codes + r * cols;
  const float* row_scales = scales + r * (cols / group_size);
  float acc[kGemvTokens] = {};
  if (vectorized) {
    for (int64_t c0 = static_cast<int64_t>(lane) * kCodesPerLoad; c0 < cols;
         c0 += 32 * kCodesPerLoad) {
      const int4 packed = *reinterpret_cast<const int4*>(row_codes + c0);
      const int8_t* code = reinterpret_cast<const int8_t*>(&packed);
      const float scale = row_scales[c0 / group_size];
      float w[kCodesPerLoad];
      for (int i = 0; i < kCodesPerLoad; ++i) w[i] = static_cast<float>(code[i]) * scale;
      for (int t = 0; t < kGemvTokens; ++t) {
        if (t >= num_t) break;
        const float4* xv = reinterpret_cast<const float4*>(x + (t0 + t) * cols + c0);
        float sum = 0.0f;
        for (int i = 0; i < kCodesPerLoad / 4; ++i) {
          const float4 v = xv[i];
          sum += v.x * w[4 * i] + v.y * w[4 * i + 1] + v.z * w[4 * i + 2] + v.w * w[4 * i + 3];
        }
        acc[t] += sum;
      }
    }
  } else {
    for (int64_t c = lane; c < cols; c += 32) {
      const float w = static_cast<float>(row_codes[c]) * row_scales[c / group_size];
      for (int t = 0; t < kGemvTokens; ++t) {
        if (t >= num_t) break;
        acc[t] += x[(t0 + t) * cols + c] * w;
      }
    }
  }
  for (int t = 0; t < kGemvTokens; ++t) {
    if (t >= num_t) break;
    const float total = warp_sum(acc[t]);
    if (lane == 0) y[(t0 + t) * rows + r] = total;
  }
}

// ---- variant 2: tiled GEMM, 64 tokens x 64 rows per block, 16x16 threads of 4x4 outputs ----
constexpr int kTile = 64;
constexpr int kTileK = 32;
constexpr int kTileThreads = 256;

__global__ void __launch_bounds__(kTileThreads)
    int8_gemm_kernel(const float* x, int64_t num_tokens, const int8_t* codes, const float* scales,
                     int64_t rows, int64_t cols, int64_t group_size, float* y) {
  __shared__ float x_tile[kTileK][kTile + 1];  // [k, token]
  __shared__ float w_tile[kTileK][kTile + 1];  // [k, row], dequantized
  const int64_t t_base = static_cast<int64_t>(blockIdx.y) * kTile;
  const int64_t r_base = static_cast<int64_t>(blockIdx.x) * kTile;
  const int tx = threadIdx.x % 16;  // rows r_base + tx + 16 * j
  const int ty = threadIdx.x / 16;  // tokens t_base + ty + 16 * i
  const int64_t num_groups = cols / group_size;
  float acc[4][4] = {};
  for (int64_t k0 = 0; k0 < cols; k0 += kTileK) {
    // 64 x 32 elements per tile, 8 per thread; k fastest for coalesced global reads.
    for (int e = threadIdx.x; e < kTile * kTileK; e += kTileThreads) {
      const int kk = e % kTileK;
      const int m = e / kTileK;
      const int64_t c = k0 + kk;
      const int64_t t = t_base + m;
      const int64_t r = r_base + m;
      x_tile[kk][m] = (t < num_tokens && c < cols) ? x[t * cols + c] : 0.0f;
      w_tile[kk][m] = (r < rows && c < cols) ? static_cast<float>(codes[r * cols + c]) *
                                                   scales[r * num_groups + c / group_size]
                                             : 0.0f;
    }
    __syncthreads();
    for (int kk = 0; kk < kTileK; ++kk) {
      float xs[4];
      float ws[4];
      for (int i = 0; i < 4; ++i) xs[i] = x_tile[kk][ty + 16 * i];
      for (int j = 0; j < 4; ++j) ws[j] = w_tile[kk][tx + 16 * j];
      for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 4; ++j) acc[i][j] += xs[i] * ws[j];
      }
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i) {
    const int64_t t = t_base + ty + 16 * i;
    if (t >= num_tokens) continue;
    for (int j = 0; j < 4; ++j) {
      const int64_t r = r_base + tx + 16 * j;
      if (r < rows) y[t * rows + r] = acc[i][j];
    }
  }
}

}  // namespace

void launch_int8_linear(const float* x, int64_t num_tokens, const LinearView& weight, float* y,
                        int variant, cudaStream_t stream) {
  if (weight.format != WeightFormat::int8 || weight.group_size <= 0 ||
      weight.cols % weight.group_size != 0) {
    throw std::invalid_argument(
        "cuda int8 linear: need int8 weights whose group_size divides cols");
  }
  if (num_tokens == 0) return;
  if (variant == 0) variant = num_tokens <= 16 ? 1 : 2;
  const auto* codes = static_cast<const int8_t*>(weight.data);
  if (variant == 1) {
    const bool vectorized =
        weight.cols % kCodesPerLoad == 0 && weight.group_size % kCodesPerLoad == 0 &&
        reinterpret_cast<uintptr_t>(x) % 16 == 0 && reinterpret_cast<uintptr_t>(codes) % 16 == 0;
    const dim3 grid(static_cast<unsigned>((weight.rows + kGemvWarps - 1) / kGemvWarps),
                    static_cast<unsigned>((num_tokens + kGemvTokens - 1) / kGemvTokens));
    int8_gemv_kernel<<<grid, kGemvWarps * 32, 0, stream>>>(x, num_tokens, codes, weight.scales,
                                                           weight.rows, weight.cols,
                                                           weight.group_size, y, vectorized);
  } else if (variant == 2) {
    const dim3 grid(static_cast<unsigned>((weight.rows + kTile - 1) / kTile),
                    static_cast<unsigned>((num_tokens + kTile - 1) / kTile));
    int8_gemm_kernel<<<grid, kTileThreads, 0, stream>>>(
        x, num_tokens, codes, weight.scales, weight.rows, weight.cols, weight.group_size, y);
  } else {
    throw std::invalid_argument("cuda int8 linear: variant must be 0, 1 or 2");
  }
  TIDAL_CUDA_CHECK_LAUNCH();
}

}  // namespace tidal::kernels::cuda
