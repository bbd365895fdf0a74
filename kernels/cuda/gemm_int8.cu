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

// ---- variant 1: GEMV, a warp per kRows output rows, kGemvTokens tokens per pass ----
constexpr int kGemvWarps = 4;
constexpr int kGemvTokens = 8;
constexpr int kCodesPerLoad = 16;
// 16-byte code loads in flight per lane: kRows x kSteps.
constexpr int kGemvLoadsInFlight = 4;

// code i (0..3) of `word` as fp32, exactly: the byte biased to unsigned becomes the low mantissa
// bits of 2^23, whose value minus 2^23 + 128 is the signed code (one byte permute and one add,
// where an int-to-float conversion runs at a quarter of the FMA rate).
template <int i>
__device__ inline float code_to_float(uint32_t biased_word) {
  return __uint_as_float(__byte_perm(biased_word, 0x4b000000u, 0x7440u | i)) - 8388736.0f;
}

// Vectorized path: cols and group_size multiples of 16, x and codes 16-byte aligned, so each lane
// reads 16 codes (one int4) that share one scale. Grid (ceil(rows / (kGemvWarps * kRows)),
// ceil(num_tokens / kGemvTokens)).
template <int kRows>
__global__ void __launch_bounds__(kGemvWarps * 32)
    int8_gemv_vector_kernel(const float* x, int64_t num_tokens, const int8_t* codes,
                            const float* scales, int64_t rows, int64_t cols, int64_t group_size,
                            float* y) {
  constexpr int kSteps = kGemvLoadsInFlight / kRows;
  const int lane = threadIdx.x % 32;
  const int64_t r0 = (static_cast<int64_t>(blockIdx.x) * kGemvWarps + threadIdx.x / 32) * kRows;
  const int64_t t0 = static_cast<int64_t>(blockIdx.y) * kGemvTokens;
  if (r0 >= rows) return;
  const int num_t = static_cast<int>(min_i64(kGemvTokens, num_tokens - t0));
  const int num_r = static_cast<int>(min_i64(kRows, rows - r0));
  const int64_t num_groups = cols / group_size;
  const int64_t num_steps = (cols + 32 * kCodesPerLoad - 1) / (32 * kCodesPerLoad);
  // Column offsets fit 32 bits (cols < 2^31): the group of a column is a 32-bit division.
  const auto group_of = [group = static_cast<uint32_t>(group_size)](int64_t c) {
    return static_cast<uint32_t>(c) / group;
  };
  const int8_t* row_codes[kRows];
  const float* row_scales[kRows];
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    row_codes[r] = codes + (r0 + r) * cols;
    row_scales[r] = scales + (r0 + r) * num_groups;
  }
  float acc[kRows][kGemvTokens] = {};
  for (int64_t s0 = 0; s0 < num_steps; s0 += kSteps) {
    uint4 packed[kSteps][kRows];
    float scale[kSteps][kRows];
#pragma unroll
    for (int s = 0; s < kSteps; ++s) {
      const int64_t c = (s0 + s) * 32 * kCodesPerLoad + lane * kCodesPerLoad;
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        const bool in = c < cols && r < num_r;
        packed[s][r] =
            in ? *reinterpret_cast<const uint4*>(row_codes[r] + c) : make_uint4(0, 0, 0, 0);
        scale[s][r] = in ? row_scales[r][group_of(c)] : 0.0f;
      }
    }
#pragma unroll
    for (int s = 0; s < kSteps; ++s) {
      const int64_t c = (s0 + s) * 32 * kCodesPerLoad + lane * kCodesPerLoad;
      if (c >= cols) break;
      float w[kRows][kCodesPerLoad];
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        const uint32_t words[4] = {packed[s][r].x ^ 0x80808080u, packed[s][r].y ^ 0x80808080u,
                                   packed[s][r].z ^ 0x80808080u, packed[s][r].w ^ 0x80808080u};
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          w[r][4 * i] = code_to_float<0>(words[i]);
          w[r][4 * i + 1] = code_to_float<1>(words[i]);
          w[r][4 * i + 2] = code_to_float<2>(words[i]);
          w[r][4 * i + 3] = code_to_float<3>(words[i]);
        }
      }
#pragma unroll
      for (int t = 0; t < kGemvTokens; ++t) {
        if (t >= num_t) break;
        const float4* xv = reinterpret_cast<const float4*>(x + (t0 + t) * cols + c);
        float xs[kCodesPerLoad];
#pragma unroll
        for (int i = 0; i < kCodesPerLoad / 4; ++i) {
          const float4 v = xv[i];
          xs[4 * i] = v.x;
          xs[4 * i + 1] = v.y;
          xs[4 * i + 2] = v.z;
          xs[4 * i + 3] = v.w;
        }
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
          float sum = 0.0f;
#pragma unroll
          for (int i = 0; i < kCodesPerLoad; ++i) sum += xs[i] * w[r][i];
          acc[r][t] += sum * scale[s][r];
        }
      }
    }
  }
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
#pragma unroll
    for (int t = 0; t < kGemvTokens; ++t) {
      if (t >= num_t) break;
      const float total = warp_sum(acc[r][t]);
      if (lane == 0 && r < num_r) y[(t0 + t) * rows + r0 + r] = total;
    }
  }
}

// Any shape: one warp per output row, code by code.
__global__ void __launch_bounds__(kGemvWarps * 32)
    int8_gemv_scalar_kernel(const float* x, int64_t num_tokens, const int8_t* codes,
                            const float* scales, int64_t rows, int64_t cols, int64_t group_size,
                            float* y) {
  const int lane = threadIdx.x % 32;
  const int64_t r = static_cast<int64_t>(blockIdx.x) * kGemvWarps + threadIdx.x / 32;
  const int64_t t0 = static_cast<int64_t>(blockIdx.y) * kGemvTokens;
  if (r >= rows) return;
  const int64_t num_t = min_i64(kGemvTokens, num_tokens - t0);
  const int8_t* row_codes = codes + r * cols;
  const float* row_scales = scales + r * (cols / group_size);
  float acc[kGemvTokens] = {};
  for (int64_t c = lane; c < cols; c += 32) {
    const float w = static_cast<float>(row_codes[c]) * row_scales[c / group_size];
    for (int t = 0; t < kGemvTokens; ++t) {
      if (t >= num_t) break;
      acc[t] += x[(t0 + t) * cols + c] * w;
    }
  }
  for (int t = 0; t < kGemvTokens; ++t) {
    if (t >= num_t) break;
    const float total = warp_sum(acc[t]);
    if (lane == 0) y[(t0 + t) * rows + r] = total;
  }
}

template <int kRows>
void launch_gemv_vector(const float* x, int64_t num_tokens, const LinearView& weight, float* y,
                        cudaStream_t stream) {
  const int64_t rows_per_block = kGemvWarps * kRows;
  const dim3 grid(static_cast<unsigned>((weight.rows + rows_per_block - 1) / rows_per_block),
                  static_cast<unsigned>((num_tokens + kGemvTokens - 1) / kGemvTokens));
  int8_gemv_vector_kernel<kRows><<<grid, kGemvWarps * 32, 0, stream>>>(
      x, num_tokens, static_cast<const int8_t*>(weight.data), weight.scales, weight.rows,
      weight.cols, weight.group_size, y);
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
    if (!vectorized) {
      const dim3 grid(static_cast<unsigned>((weight.rows + kGemvWarps - 1) / kGemvWarps),
                      static_cast<unsigned>((num_tokens + kGemvTokens - 1) / kGemvTokens));
      int8_gemv_scalar_kernel<<<grid, kGemvWarps * 32, 0, stream>>>(
          x, num_tokens, codes, weight.scales, weight.rows, weight.cols, weight.group_size, y);
    } else if (weight.rows >= 8192) {
      // Each lane reads 4 floats of x per 4 bytes of codes: rows enough to fill the GPU with
      // several per warp read x that many times less.
      launch_gemv_vector<4>(x, num_tokens, weight, y, stream);
    } else if (weight.rows >= 2048) {
      launch_gemv_vector<2>(x, num_tokens, weight, y, stream);
    } else {
      launch_gemv_vector<1>(x, num_tokens, weight, y, stream);
    }
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
