// Embedding, RMSNorm (plain and fused with the residual add), RoPE, SwiGLU, add, softmax, MoE
// routing, row gather/scatter and dtype conversions. Specs: the reference kernels in kernels/cpu/.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>

#include "kernels/cuda/activation_store.cuh"
#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/launchers.h"

namespace tidal::kernels::cuda {

namespace {

constexpr int kRowThreads = 256;
constexpr int kFlatThreads = 256;

unsigned flat_blocks(int64_t count) {
  return static_cast<unsigned>(std::min<int64_t>((count + kFlatThreads - 1) / kFlatThreads, 65535));
}

// Grid-stride loop index helpers for 1-D kernels.
__device__ inline int64_t flat_index() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline int64_t flat_stride() {
  return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

__global__ void embedding_kernel(const float* __restrict__ table, int64_t hidden,
                                 const int32_t* __restrict__ token_ids, float* __restrict__ out) {
  const int64_t t = blockIdx.x;
  const float* row = table + static_cast<int64_t>(token_ids[t]) * hidden;
#pragma unroll 8
  for (int64_t i = threadIdx.x; i < hidden; i += blockDim.x) out[t * hidden + i] = row[i];
}

// One block per row of dim <= kPerThread * blockDim.x, held in registers: every load of the row
// is issued before the first store, so a single row (decode) costs one memory latency, not one per
// loop trip. With `add`, residual += x first and the sum is what gets normalized. `store` takes the
// normalized values (fp32, or half for a GEMM that reads half activations).
template <int kPerThread, typename Store>
__global__ void rms_norm_registers_kernel(float* residual_or_x, const float* x, const float* weight,
                                          int64_t dim, float eps, Store store, bool add) {
  __shared__ float scratch[32];
  const int64_t offset = static_cast<int64_t>(blockIdx.x) * dim;
  float* row = residual_or_x + offset;
  float values[kPerThread];
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const int64_t i = threadIdx.x + static_cast<int64_t>(k) * blockDim.x;
    values[k] = i < dim ? row[i] : 0.0f;
  }
  if (add) {
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const int64_t i = threadIdx.x + static_cast<int64_t>(k) * blockDim.x;
      if (i < dim) values[k] += x[offset + i];
    }
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const int64_t i = threadIdx.x + static_cast<int64_t>(k) * blockDim.x;
      if (i < dim) row[i] = values[k];
    }
  }
  float sum_sq = 0.0f;
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) sum_sq += values[k] * values[k];
  sum_sq = block_sum(sum_sq, scratch);
  const float inv_rms = 1.0f / sqrtf(sum_sq / static_cast<float>(dim) + eps);
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const int64_t i = threadIdx.x + static_cast<int64_t>(k) * blockDim.x;
    if (i < dim) store(offset + i, values[k] * inv_rms * weight[i]);
  }
}

// Rows longer than rms_norm_registers_kernel holds: the same, element by element.
template <typename Store>
__global__ void rms_norm_kernel(float* residual_or_x, const float* x, const float* weight,
                                int64_t dim, float eps, Store store, bool add) {
  __shared__ float scratch[32];
  const int64_t offset = static_cast<int64_t>(blockIdx.x) * dim;
  float* row = residual_or_x + offset;
  float sum_sq = 0.0f;
  for (int64_t i = threadIdx.x; i < dim; i += blockDim.x) {
    float value = row[i];
    if (add) {
      value += x[offset + i];
      row[i] = value;
    }
    sum_sq += value * value;
  }
  sum_sq = block_sum(sum_sq, scratch);
  const float inv_rms = 1.0f / sqrtf(sum_sq / static_cast<float>(dim) + eps);
  for (int64_t i = threadIdx.x; i < dim; i += blockDim.x) {
    store(offset + i, row[i] * inv_rms * weight[i]);
  }
}

// Grid (token, head of q then k); threads over the first half of head_dim (rotate-half).
__global__ void rope_kernel(float* q, float* k, const int32_t* positions, int64_t num_heads,
                            int64_t num_kv_heads, int64_t head_dim, const float* inv_freq) {
  const int64_t t = blockIdx.x;
  const int64_t h = blockIdx.y;
  float* head = h < num_heads ? q + (t * num_heads + h) * head_dim
                              : k + (t * num_kv_heads + (h - num_heads)) * head_dim;
  const int64_t half = head_dim / 2;
  for (int64_t i = threadIdx.x; i < half; i += blockDim.x) {
    const float angle = static_cast<float>(positions[t]) * inv_freq[i];
    const float c = cosf(angle);
    const float s = sinf(angle);
    const float x0 = head[i];
    const float x1 = head[i + half];
    head[i] = x0 * c - x1 * s;
    head[i + half] = x1 * c + x0 * s;
  }
}

__global__ void swiglu_kernel(const float* gate, const float* up, int64_t count, float* out) {
  for (int64_t i = flat_index(); i < count; i += flat_stride()) {
    const float g = gate[i];
    out[i] = g / (1.0f + expf(-g)) * up[i];
  }
}

// The interleaved gate/up output: out[t, i] = silu(gate_up[t, 2i]) * gate_up[t, 2i + 1].
template <typename Store>
__global__ void swiglu_pairs_kernel(const float* gate_up, int64_t count, Store store) {
  for (int64_t i = flat_index(); i < count; i += flat_stride()) {
    const float2 pair = reinterpret_cast<const float2*>(gate_up)[i];
    store(i, pair.x / (1.0f + expf(-pair.x)) * pair.y);
  }
}

__global__ void add_kernel(float* y, const float* x, int64_t count) {
  for (int64_t i = flat_index(); i < count; i += flat_stride()) y[i] += x[i];
}

__global__ void softmax_kernel(float* x, int64_t num_cols) {
  __shared__ float scratch[32];
  float* row = x + static_cast<int64_t>(blockIdx.x) * num_cols;
  float max_value = -FLT_MAX;
  for (int64_t i = threadIdx.x; i < num_cols; i += blockDim.x) max_value = fmaxf(max_value, row[i]);
  max_value = block_max(max_value, scratch);
  float sum = 0.0f;
  for (int64_t i = threadIdx.x; i < num_cols; i += blockDim.x) {
    row[i] = expf(row[i] - max_value);
    sum += row[i];
  }
  sum = block_sum(sum, scratch);
  for (int64_t i = threadIdx.x; i < num_cols; i += blockDim.x) row[i] /= sum;
}

// One thread per token: repeated argmax over the experts not yet taken (ties to the lower id),
// then a softmax over the selected logits.
__global__ void moe_route_kernel(const float* router_logits, int64_t num_tokens,
                                 int64_t num_experts, int64_t top_k, int32_t* expert_ids,
                                 float* expert_weights) {
  const int64_t t = flat_index();
  if (t >= num_tokens) return;
  const float* logits = router_logits + t * num_experts;
  int32_t* ids = expert_ids + t * top_k;
  float* weights = expert_weights + t * top_k;
  for (int64_t j = 0; j < top_k; ++j) {
    int64_t best = -1;
    for (int64_t e = 0; e < num_experts; ++e) {
      bool taken = false;
      for (int64_t prev = 0; prev < j; ++prev) taken = taken || ids[prev] == e;
      if (!taken && (best < 0 || logits[e] > logits[best])) best = e;
    }
    ids[j] = static_cast<int32_t>(best);
  }
  const float max_logit = logits[ids[0]];
  float sum = 0.0f;
  for (int64_t j = 0; j < top_k; ++j) {
    weights[j] = expf(logits[ids[j]] - max_logit);
    sum += weights[j];
  }
  for (int64_t j = 0; j < top_k; ++j) weights[j] /= sum;
}

__global__ void gather_rows_kernel(const float* __restrict__ src, const int32_t* __restrict__ rows,
                                   int64_t dim, float* __restrict__ out) {
  const int64_t i = blockIdx.x;
  const float* row = src + static_cast<int64_t>(rows[i]) * dim;
#pragma unroll 8
  for (int64_t j = threadIdx.x; j < dim; j += blockDim.x) out[i * dim + j] = row[j];
}

__global__ void scatter_add_rows_kernel(const float* src, const int32_t* rows, const float* weights,
                                        int64_t num_rows, int64_t dim, float* dst) {
  const int64_t j = flat_index();
  if (j >= dim) return;
  for (int64_t i = 0; i < num_rows; ++i) {
    dst[static_cast<int64_t>(rows[i]) * dim + j] += weights[i] * src[i * dim + j];
  }
}

__global__ void float_to_half_kernel(const float* x, int64_t count, bool bf16, uint16_t* out) {
  for (int64_t i = flat_index(); i < count; i += flat_stride()) {
    out[i] = bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(x[i]))
                  : __half_as_ushort(__float2half_rn(x[i]));
  }
}

__global__ void scale_columns_kernel(float* y, int64_t num_tokens, int64_t rows,
                                     const float* row_scales, const float* tensor_scale) {
  const float global = *tensor_scale;
  for (int64_t i = flat_index(); i < num_tokens * rows; i += flat_stride()) {
    y[i] *= row_scales[i % rows] * global;
  }
}

// |x| of non-negative floats orders like their bit patterns, so an integer atomicMax works.
__global__ void absmax_kernel(const float* x, int64_t count, unsigned* absmax_bits) {
  __shared__ float scratch[32];
  float local = 0.0f;
  for (int64_t i = flat_index(); i < count; i += flat_stride()) local = fmaxf(local, fabsf(x[i]));
  local = block_max(local, scratch);
  if (threadIdx.x == 0) atomicMax(absmax_bits, __float_as_uint(local));
}

__global__ void quantize_fp8_kernel(const float* x, int64_t count, uint8_t* codes, float* scale) {
  const float absmax = __uint_as_float(*reinterpret_cast<const unsigned*>(scale + 1));
  const float tensor_scale = absmax > 0.0f ? absmax / 448.0f : 1.0f;
  if (flat_index() == 0) scale[0] = tensor_scale;
  for (int64_t i = flat_index(); i < count; i += flat_stride()) {
    codes[i] = __nv_cvt_float_to_fp8(x[i] / tensor_scale, __NV_SATFINITE, __NV_E4M3);
  }
}

// splitmix64 of (seed, index): 64 well-mixed bits.
__device__ inline uint64_t mix_bits(uint64_t seed, uint64_t index) {
  uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

__global__ void fill_random_half_kernel(uint16_t* out, int64_t count, bool bf16, float scale,
                                        uint64_t seed) {
  for (int64_t i = flat_index(); i < count; i += flat_stride()) {
    const float u = static_cast<float>(mix_bits(seed, i) >> 40) * 0x1.0p-24f;  // [0, 1)
    const float value = (2.0f * u - 1.0f) * scale;
    out[i] = bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(value))
                  : __half_as_ushort(__float2half_rn(value));
  }
}

__global__ void fill_random_int8_kernel(int8_t* out, int64_t count, uint64_t seed) {
  for (int64_t i = flat_index(); i < count; i += flat_stride()) {
    out[i] = static_cast<int8_t>(static_cast<int>(mix_bits(seed, i) % 255) - 127);
  }
}

}  // namespace

void launch_fill_random_half(uint16_t* out, int64_t count, HalfType type, float scale,
                             uint64_t seed, cudaStream_t stream) {
  if (count == 0) return;
  fill_random_half_kernel<<<flat_blocks(count), kFlatThreads, 0, stream>>>(
      out, count, type == HalfType::bf16, scale, seed);
  TIDAL_CUDA_CHECK_LAUNCH();
}

void launch_fill_random_int8(int8_t* out, int64_t count, uint64_t seed, cudaStream_t stream) {
  if (count == 0) return;
  fill_random_int8_kernel<<<flat_blocks(count), kFlatThreads, 0, stream>>>(out, count, seed);
  TIDAL_CUDA_CHECK_LAUNCH();
}

void launch_embedding(const float* table, int64_t hidden, const int32_t* token_ids,
                      int64_t num_tokens, float* out, cudaStream_t stream) {
  if (num_tokens == 0) return;
  embedding_kernel<<<static_cast<unsigned>(num_tokens), kRowThreads, 0, stream>>>(table, hidden,
                                                                                  token_ids, out);
  TIDAL_CUDA_CHECK_LAUNCH();
}

namespace {

// Picks the kernel by row length; without `add`, residual_or_x is only read.
template <typename Store>
void launch_rms_norm_rows(float* residual_or_x, const float* x, const float* weight,
                          int64_t num_rows, int64_t dim, float eps, Store out, bool add,
                          cudaStream_t stream) {
  if (num_rows == 0) return;
  const dim3 grid(static_cast<unsigned>(num_rows));
  if (dim <= 4 * kRowThreads) {
    rms_norm_registers_kernel<4, Store>
        <<<grid, kRowThreads, 0, stream>>>(residual_or_x, x, weight, dim, eps, out, add);
  } else if (dim <= 16 * kRowThreads) {
    rms_norm_registers_kernel<16, Store>
        <<<grid, kRowThreads, 0, stream>>>(residual_or_x, x, weight, dim, eps, out, add);
  } else if (dim <= 32 * kRowThreads) {
    rms_norm_registers_kernel<32, Store>
        <<<grid, kRowThreads, 0, stream>>>(residual_or_x, x, weight, dim, eps, out, add);
  } else {
    rms_norm_kernel<Store>
        <<<grid, kRowThreads, 0, stream>>>(residual_or_x, x, weight, dim, eps, out, add);
  }
  TIDAL_CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_rms_norm(const float* x, const float* weight, int64_t num_rows, int64_t dim, float eps,
                     float* out, cudaStream_t stream) {
  // Without `add` the kernels only read their first argument.
  launch_rms_norm_rows(const_cast<float*>(x), nullptr, weight, num_rows, dim, eps, StoreF32{out},
                       false, stream);
}

void launch_add_rms_norm(float* residual, const float* x, const float* weight, int64_t num_rows,
                         int64_t dim, float eps, float* out, cudaStream_t stream) {
  launch_rms_norm_rows(residual, x, weight, num_rows, dim, eps, StoreF32{out}, true, stream);
}

void launch_rms_norm_half(const float* x, const float* weight, int64_t num_rows, int64_t dim,
                          float eps, HalfType type, uint16_t* out, cudaStream_t stream) {
  launch_rms_norm_rows(const_cast<float*>(x), nullptr, weight, num_rows, dim, eps,
                       StoreHalf{out, type == HalfType::bf16}, false, stream);
}

void launch_add_rms_norm_half(float* residual, const float* x, const float* weight,
                              int64_t num_rows, int64_t dim, float eps, HalfType type,
                              uint16_t* out, cudaStream_t stream) {
  launch_rms_norm_rows(residual, x, weight, num_rows, dim, eps,
                       StoreHalf{out, type == HalfType::bf16}, true, stream);
}

void launch_swiglu_pairs(const float* gate_up, int64_t num_tokens, int64_t intermediate, float* out,
                         cudaStream_t stream) {
  const int64_t count = num_tokens * intermediate;
  if (count == 0) return;
  swiglu_pairs_kernel<<<flat_blocks(count), kFlatThreads, 0, stream>>>(gate_up, count,
                                                                       StoreF32{out});
  TIDAL_CUDA_CHECK_LAUNCH();
}

void launch_swiglu_pairs_half(const float* gate_up, int64_t num_tokens, int64_t intermediate,
                              HalfType type, uint16_t* out, cudaStream_t stream) {
  const int64_t count = num_tokens * intermediate;
  if (count == 0) return;
  swiglu_pairs_kernel<<<flat_blocks(count), kFlatThreads, 0, stream>>>(
      gate_up, count, StoreHalf{out, type == HalfType::bf16});
  TIDAL_CUDA_CHECK_LAUNCH();
}

void launch_rope(float* q, float* k, const int32_t* positions, int64_t num_tokens,
                 int64_t num_heads, int64_t num_kv_heads, int64_t head_dim, const float* inv_freq,
                 cudaStream_t stream) {
  if (num_tokens == 0) return;
  const dim3 grid(static_cast<unsigned>(num_tokens),
                  static_cast<unsigned>(num_heads + num_kv_heads));
  const unsigned threads = static_cast<unsigned>(std::clamp<int64_t>(head_dim / 2, 32, 128));
  rope_kernel<<<grid, threads, 0, stream>>>(q, k, positions, num_heads, num_kv_heads, head_dim,
                                            inv_freq);
  TIDAL_CUDA_CHECK_LAUNCH();
}

void launch_swiglu(const float* gate, const float* up, int64_t count, float* out,
                   cudaStream_t stream) {
  if (count == 0) return;
  swiglu_kernel<<<flat_blocks(count), kFlatThreads, 0, stream>>>(gate, up, count, out);
  TIDAL_CUDA_CHECK_LAUNCH();
}

void launch_add(float* y, const float* x, int64_t count, cudaStream_t stream) {
  if (count == 0) return;
  add_kernel<<<flat_blocks(count), kFlatThreads, 0, stream>>>(y, x, count);
  TIDAL_CUDA_CHECK_LAUNCH();
}

void launch_softmax(float* x, int64_t num_rows, int64_t num_cols, cudaStream_t stream) {
  if (num_rows == 0) return;
  softmax_kernel<<<static_cast<unsigned>(num_rows), kRowThreads, 0, stream>>>(x, num_cols);
  TIDAL_CUDA_CHECK_LAUNCH();
}

void launch_moe_route(const float* router_logits, int64_t num_tokens, int64_t num_experts,
                      int64_t top_k, int32_t* expert_ids, float* expert_weights,
                      cudaStream_t stream) {
  if (num_tokens == 0) return;
  const unsigned blocks = static_cast<unsigned>((num_tokens + kFlatThreads - 1) / kFlatThreads);
  moe_route_kernel<<<blocks, kFlatThreads, 0, stream>>>(router_logits, num_tokens, num_experts,
                                                        top_k, expert_ids, expert_weights);
  TIDAL_CUDA_CHECK_LAUNCH();
}

void launch_gather_rows(const float* src, const int32_t* rows, int64_t num_rows, int64_t dim,
                        float* out, cudaStream_t stream) {
  if (num_rows == 0) return;
  gather_rows_kernel<<<static_cast<unsigned>(num_rows), kRowThreads, 0, stream>>>(src, rows, dim,
                                                                                  out);
  TIDAL_CUDA_CHECK_LAUNCH();
}

void launch_scatter_add_rows(const float* src, const int32_t* rows, const float* weights,
                             int64_t num_rows, int64_t dim, float* dst, cudaStream_t stream) {
  if (num_rows == 0 || dim == 0) return;
  const unsigned blocks = static_cast<unsigned>((dim + kFlatThreads - 1) / kFlatThreads);
  scatter_add_rows_kernel<<<blocks, kFlatThreads, 0, stream>>>(src, rows, weights, num_rows, dim,
                                                               dst);
  TIDAL_CUDA_CHECK_LAUNCH();
}

void launch_float_to_half(const float* x, int64_t count, HalfType type, uint16_t* out,
                          cudaStream_t stream) {
  if (count == 0) return;
  float_to_half_kernel<<<flat_blocks(count), kFlatThreads, 0, stream>>>(
      x, count, type == HalfType::bf16, out);
  TIDAL_CUDA_CHECK_LAUNCH();
}

void launch_scale_columns(float* y, int64_t num_tokens, int64_t rows, const float* row_scales,
                          const float* tensor_scale, cudaStream_t stream) {
  if (num_tokens * rows == 0) return;
  scale_columns_kernel<<<flat_blocks(num_tokens * rows), kFlatThreads, 0, stream>>>(
      y, num_tokens, rows, row_scales, tensor_scale);
  TIDAL_CUDA_CHECK_LAUNCH();
}

void launch_quantize_fp8_per_tensor(const float* x, int64_t count, uint8_t* codes, float* scale,
                                    cudaStream_t stream) {
  if (count == 0) return;
  TIDAL_CUDA_CHECK(cudaMemsetAsync(scale + 1, 0, sizeof(float), stream));
  absmax_kernel<<<flat_blocks(count), kFlatThreads, 0, stream>>>(
      x, count, reinterpret_cast<unsigned*>(scale + 1));
  TIDAL_CUDA_CHECK_LAUNCH();
  quantize_fp8_kernel<<<flat_blocks(count), kFlatThreads, 0, stream>>>(x, count, codes, scale);
  TIDAL_CUDA_CHECK_LAUNCH();
}

}  // namespace tidal::kernels::cuda
