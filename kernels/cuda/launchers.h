// Host entry points of the CUDA kernels (defined in the .cu files of this folder). Every pointer
// is device memory; every launch is asynchronous on `stream` and checks its launch status.
// Each kernel's specification is the CPU reference of the same name in kernels/cpu/.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/attention_batch.h"
#include "kernels/fused_weights.h"
#include "kernels/kv_cache.h"
#include "kernels/linear_weight.h"
#include "kernels/sampling.h"

namespace tidal::kernels::cuda {

// ---- elementwise.cu ----
void launch_embedding(const float* table,        // [vocab, hidden]
                      int64_t hidden,            //
                      const int32_t* token_ids,  // [num_tokens]
                      int64_t num_tokens,        //
                      float* out,                // [num_tokens, hidden]
                      cudaStream_t stream);
void launch_rms_norm(const float* x,       // [num_rows, dim]
                     const float* weight,  // [dim]
                     int64_t num_rows, int64_t dim, float eps,
                     float* out,  // [num_rows, dim]
                     cudaStream_t stream);
// residual += x; out = rms_norm(residual), one block per row.
void launch_add_rms_norm(float* residual,      // [num_rows, dim]
                         const float* x,       // [num_rows, dim]
                         const float* weight,  // [dim]
                         int64_t num_rows, int64_t dim, float eps,
                         float* out,  // [num_rows, dim]
                         cudaStream_t stream);
void launch_rope(float* q,                  // [num_tokens, num_heads, head_dim]
                 float* k,                  // [num_tokens, num_kv_heads, head_dim]
                 const int32_t* positions,  // [num_tokens]
                 int64_t num_tokens, int64_t num_heads, int64_t num_kv_heads, int64_t head_dim,
                 const float* inv_freq,  // [head_dim / 2]
                 cudaStream_t stream);
void launch_swiglu(const float* gate,  // [count]
                   const float* up,    // [count]
                   int64_t count,
                   float* out,  // [count]
                   cudaStream_t stream);
void launch_add(float* y,        // [count]
                const float* x,  // [count]
                int64_t count, cudaStream_t stream);
void launch_softmax(float* x,  // [num_rows, num_cols]
                    int64_t num_rows, int64_t num_cols, cudaStream_t stream);
void launch_moe_route(const float* router_logits,  // [num_tokens, num_experts]
                      int64_t num_tokens, int64_t num_experts, int64_t top_k,
                      int32_t* expert_ids,    // [num_tokens, top_k]
                      float* expert_weights,  // [num_tokens, top_k]
                      cudaStream_t stream);
void launch_gather_rows(const float* src,     // [num_src_rows, dim]
                        const int32_t* rows,  // [num_rows]
                        int64_t num_rows, int64_t dim,
                        float* out,  // [num_rows, dim]
                        cudaStream_t stream);
// Applied in order of i within each column, like the reference (one thread per column).
void launch_scatter_add_rows(const float* src,      // [num_rows, dim]
                             const int32_t* rows,   // [num_rows]
                             const float* weights,  // [num_rows]
                             int64_t num_rows, int64_t dim,
                             float* dst,  // [num_dst_rows, dim]
                             cudaStream_t stream);

enum class HalfType : uint8_t { bf16, fp16 };

// ---- fused decode operators (elementwise.cu, gemv_half.cu, fused_decode.cu) ----
// Specs: kernels/cpu/fused_reference.h; which one runs: kernels/cuda/fused_dispatch.h.
// rms_norm / add_rms_norm with the output rounded to the half type (one kernel, no conversion).
void launch_rms_norm_half(const float* x,       // [num_rows, dim]
                          const float* weight,  // [dim]
                          int64_t num_rows, int64_t dim, float eps, HalfType type,
                          uint16_t* out,  // [num_rows, dim]
                          cudaStream_t stream);
void launch_add_rms_norm_half(float* residual,      // [num_rows, dim]
                              const float* x,       // [num_rows, dim]
                              const float* weight,  // [dim]
                              int64_t num_rows, int64_t dim, float eps, HalfType type,
                              uint16_t* out,  // [num_rows, dim]
                              cudaStream_t stream);
// out[t, i] = silu(gate_up[t, 2i]) * gate_up[t, 2i + 1]; gate_up 8-byte aligned.
void launch_swiglu_pairs(const float* gate_up,  // [num_tokens, 2 * intermediate]
                         int64_t num_tokens, int64_t intermediate,
                         float* out,  // [num_tokens, intermediate]
                         cudaStream_t stream);
void launch_swiglu_pairs_half(const float* gate_up,  // [num_tokens, 2 * intermediate]
                              int64_t num_tokens, int64_t intermediate, HalfType type,
                              uint16_t* out,  // [num_tokens, intermediate]
                              cudaStream_t stream);
// RoPE of q and k and the KV write of k and v, read from the stacked q/k/v output: grid (token,
// head of q then kv head), q rotated into q_out, k rotated and v stored at the token's slot (slot
// -1: q only). head_dim even and <= kRopeKvMaxHeadDim (fused_dispatch.h), else
// std::invalid_argument.
void launch_rope_write_kv(const float* qkv,  // [num_tokens, layout.row_stride()]
                          const QkvLayout& layout,
                          const int32_t* positions,  // [num_tokens]
                          int64_t num_tokens,
                          const float* inv_freq,  // [head_dim / 2]
                          const KvCacheView& kv, int64_t layer,
                          const int64_t* slot_mapping,  // [num_tokens]
                          float* q_out,                 // [num_tokens, num_heads, head_dim]
                          cudaStream_t stream);
// out[i] = x[i] rounded to nearest even in the half type (uint16 storage).
void launch_float_to_half(const float* x,  // [count]
                          int64_t count, HalfType type,
                          uint16_t* out,  // [count]
                          cudaStream_t stream);
// y[t, r] *= row_scales[r] * (*tensor_scale)
void launch_scale_columns(float* y,  // [num_tokens, rows]
                          int64_t num_tokens, int64_t rows,
                          const float* row_scales,    // [rows]
                          const float* tensor_scale,  // [1]
                          cudaStream_t stream);
// Per-tensor fp8 e4m3 quantization: scale[0] = max|x| / 448 (1 when x is all zero),
// codes[i] = e4m3(x[i] / scale[0]) with saturation; scale[1] is scratch (the max's bits).
void launch_quantize_fp8_per_tensor(const float* x,  // [count]
                                    int64_t count,
                                    uint8_t* codes,  // [count]
                                    float* scale,    // [2]
                                    cudaStream_t stream);

// Deterministic pseudo-random fills for benchmarks (a hash of seed and index): half values
// uniform in [-scale, scale) rounded to the type, int8 codes uniform in [-127, 127].
void launch_fill_random_half(uint16_t* out,  // [count]
                             int64_t count, HalfType type, float scale, uint64_t seed,
                             cudaStream_t stream);
void launch_fill_random_int8(int8_t* out,  // [count]
                             int64_t count, uint64_t seed, cudaStream_t stream);

// ---- kv_attention.cu ----
void launch_write_kv(const KvCacheView& kv, int64_t layer,
                     const float* k,               // [num_tokens, num_kv_heads, head_dim]
                     const float* v,               // [num_tokens, num_kv_heads, head_dim]
                     const int64_t* slot_mapping,  // [num_tokens]; -1 skipped
                     int64_t num_tokens, cudaStream_t stream);

// How paged attention splits the context: num_splits partitions of partition_size positions.
struct AttentionSplit {
  int64_t num_splits = 1;
  int64_t partition_size = 0;
};
inline constexpr int64_t kAttentionMaxHeadDim = 256;
// Splits of the longest possible context (max_blocks_per_seq * block_size) so that
// num_tokens * num_heads * num_splits stays within kAttentionMaxPartials; 1 split for big batches.
inline constexpr int64_t kAttentionMaxPartials = 16384;
AttentionSplit choose_attention_split(const AttentionBatch& batch, int64_t block_size,
                                      int64_t min_partition_size);
// Floats of workspace paged attention needs for `split` (0 when num_splits == 1).
int64_t attention_workspace_floats(const AttentionBatch& batch, const AttentionSplit& split);
void launch_paged_attention(const float* q,  // [num_tokens, num_heads, head_dim]
                            const KvCacheView& kv, int64_t layer, const AttentionBatch& batch,
                            float scale, const AttentionSplit& split,
                            float* workspace,  // [attention_workspace_floats(batch, split)]
                            float* out,        // [num_tokens, num_heads, head_dim]
                            cudaStream_t stream);

// ---- prefill_attention.cu ----
// Paged attention on tensor cores (bf16 mma, fp32 accumulation): bf16 KV, head_dim 64 or 128.
// Same result as launch_paged_attention to within bf16 rounding of q and the softmax weights.
bool prefill_attention_supported(const KvCacheSpec& spec, const AttentionBatch& batch);
void launch_prefill_attention(const float* q,  // [num_tokens, num_heads, head_dim]
                              const KvCacheView& kv, int64_t layer, const AttentionBatch& batch,
                              float scale,
                              float* out,  // [num_tokens, num_heads, head_dim]
                              cudaStream_t stream);

// ---- gemm_int8.cu ----
// Weight-only int8 linear y = x W^T, dequantizing codes * scale in registers.
//   variant 1: warp per one or two output rows, 8 tokens per pass, four 16-byte code loads in
//              flight per lane (decode GEMV);
//   variant 2: 64x64 shared-memory tiles with the weight tile dequantized on load (prefill GEMM).
// variant 0 picks: 1 for num_tokens <= 16, else 2.
void launch_int8_linear(const float* x,  // [num_tokens, weight.cols]
                        int64_t num_tokens, const LinearView& weight,
                        float* y,  // [num_tokens, weight.rows]
                        int variant, cudaStream_t stream);

// ---- gemv_half.cu ----
// y = round_to_type(x) W^T for bf16/fp16 weights (uint16 storage), a warp per one or two output
// rows, fp32 x rounded in registers; for decode-sized batches (CudaBackend::linear_half variant 1).
void launch_half_gemv(const float* x,  // [num_tokens, cols]
                      int64_t num_tokens,
                      const uint16_t* weight,  // [rows, cols]
                      HalfType type, int64_t rows, int64_t cols,
                      float* y,  // [num_tokens, rows]
                      cudaStream_t stream);

// cols % 8 == 0 and x, weight 16-byte aligned: the GEMV's 16-byte-load kernel applies.
bool half_gemv_vectorizable(const void* x, const uint16_t* weight, int64_t cols);
// launch_half_gemv from half activations of the weight's type (no rounding of x).
void launch_half_gemv_from_half(const uint16_t* x,  // [num_tokens, cols]
                                int64_t num_tokens,
                                const uint16_t* weight,  // [rows, cols]
                                HalfType type, int64_t rows, int64_t cols,
                                float* y,  // [num_tokens, rows]
                                cudaStream_t stream);
// The interleaved gate/up GEMV with the SwiGLU epilogue: out[t, i] = half(silu(g) * u) with
// (g, u) = rows (2i, 2i + 1) of x W^T. Needs half_gemv_vectorizable (else
// std::invalid_argument).
void launch_half_gemv_swiglu(const uint16_t* x,  // [num_tokens, cols]
                             int64_t num_tokens,
                             const uint16_t* gate_up,  // [2 * intermediate, cols] interleaved
                             HalfType type, int64_t intermediate, int64_t cols,
                             uint16_t* out,  // [num_tokens, intermediate]
                             cudaStream_t stream);

// ---- sampling.cu ----
// out[r] = index of the largest logit of row r, ties to the lowest index.
void launch_argmax(const float* logits,  // [num_rows, vocab]
                   int64_t num_rows, int64_t vocab,
                   int32_t* out,  // [num_rows]
                   cudaStream_t stream);
// out[r] = the token kernels::sample_from_distribution(sampling_distribution(row r), u[r])
// gives (temperature, top-k, top-p), one block per row; sums in double.
void launch_sample(const float* logits,  // [num_rows, vocab]
                   int64_t num_rows, int64_t vocab, const SamplingParams& params,
                   const double* uniforms,  // [num_rows] in [0, 1)
                   int32_t* out,            // [num_rows]
                   cudaStream_t stream);

}  // namespace tidal::kernels::cuda
