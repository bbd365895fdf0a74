// The CUDA backend: every kernels::Backend operator on device memory, launched on one stream the
// backend owns (so a decode step can be captured into a CUDA graph). Every pointer passed in,
// including those inside LinearView, KvCacheView and AttentionBatch, is device memory of this
// backend's device. Calls are asynchronous; synchronize() waits for them.
//
// Beyond the interface: bf16/fp16 weights (linear_half: a GEMV kernel or cuBLAS), device argmax and
// top-k/top-p sampling, and scratch reservation for graph capture.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/backend.h"
#include "kernels/cuda/cuda_memory.h"
#include "kernels/cuda/device_buffer.h"
#include "kernels/cuda/fused_dispatch.h"
#include "kernels/cuda/launchers.h"
#include "kernels/fused_weights.h"
#include "kernels/sampling.h"

namespace tidal::kernels::cuda {

// A bf16 or fp16 weight matrix in device memory, [rows, cols] row-major (y = x W^T).
struct HalfLinearView {
  HalfType type = HalfType::bf16;
  int64_t rows = 0;
  int64_t cols = 0;
  const uint16_t* data = nullptr;  // [rows, cols]
};

struct CudaDeviceInfo {
  int device = 0;
  int compute_capability = 0;  // major * 10 + minor: 80 = A100, 90 = H100/H200
  int num_sms = 0;
  size_t total_memory = 0;
  std::string name;
};

CudaDeviceInfo device_info(int device);
int device_count();  // 0 when there is no device or no driver (never throws)

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(int device = 0);
  ~CudaBackend() override;
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  std::string_view name() const override { return "cuda"; }
  // Device memory of this backend, copies on its stream.
  BackendMemory& memory() override { return memory_; }
  const CudaDeviceInfo& info() const { return info_; }
  cudaStream_t stream() const { return stream_; }
  void synchronize();

  // Weight-only int8 kernel variant (0 = by batch size, 1 = GEMV, 2 = tiled GEMM); see
  // launchers.h.
  void set_int8_variant(int variant) { int8_variant_ = variant; }
  void set_attention_variant(int variant) { attention_variant_ = variant; }

  // Grows the scratch buffers so steps of up to max_tokens tokens over weights of up to max_cols
  // input columns, and attention over batches like `batch`, allocate nothing; capture graphs
  // only after reserving (a growth bumps scratch_generation(), invalidating captured graphs).
  void reserve_linear(int64_t max_tokens, int64_t max_cols);
  void reserve_attention(const AttentionBatch& batch, int64_t block_size);
  uint64_t scratch_generation() const { return scratch_generation_; }

  void embedding(const float* table, int64_t hidden, const int32_t* token_ids, int64_t num_tokens,
                 float* out) override;
  void rms_norm(const float* x, const float* weight, int64_t num_rows, int64_t dim, float eps,
                float* out) override;
  void add_rms_norm(float* residual, const float* x, const float* weight, int64_t num_rows,
                    int64_t dim, float eps, float* out) override;
  void rope(float* q, float* k, const int32_t* positions, int64_t num_tokens, int64_t num_heads,
            int64_t num_kv_heads, int64_t head_dim, const float* inv_freq) override;
  // f32 through cuBLAS (fp32 accumulation), int8 through the weight-only kernels, fp8 e4m3
  // through cuBLASLt on sm_90 (activations quantized per tensor to e4m3; CudaError on sm_80),
  // bf16 / fp16 through linear_half.
  void linear(const float* x, int64_t num_tokens, const LinearView& weight, float* y) override;
  void swiglu(const float* gate, const float* up, int64_t count, float* out) override;
  void add(float* y, const float* x, int64_t count) override;
  void write_kv(const KvCacheView& kv, int64_t layer, const float* k, const float* v,
                const int64_t* slot_mapping, int64_t num_tokens) override;
  // Variant 1 (CUDA cores, fp32 arithmetic) splits the context of long sequences across blocks
  // (choose_attention_split) and reduces; variant 2 (tensor cores, prefill_attention.cu) serves
  // batches with prompt chunks (num_tokens > num_seqs) when the cache is bf16 and head_dim 64 or
  // 128. set_attention_variant(1 or 2) forces one, 0 restores the choice.
  void paged_attention(const float* q, const KvCacheView& kv, int64_t layer,
                       const AttentionBatch& batch, float scale, float* out) override;
  void softmax(float* x, int64_t num_rows, int64_t num_cols) override;
  void moe_route(const float* router_logits, int64_t num_tokens, int64_t num_experts, int64_t top_k,
                 int32_t* expert_ids, float* expert_weights) override;
  void gather_rows(const float* src, const int32_t* rows, int64_t num_rows, int64_t dim,
                   float* out) override;
  void scatter_add_rows(const float* src, const int32_t* rows, const float* weights,
                        int64_t num_rows, int64_t dim, float* dst) override;

  // y = x W^T with bf16/fp16 weights: x is rounded to the weight type, fp32 accumulation.
  // Variant 2 (conversion kernel + cuBLAS) by default; variant 1, the GEMV of gemv_half.cu, ran an
  // 8B-class model's decode step slower on an H200 (batch 1: 7.0 against 6.4 ms; batch 2..8
  // slower than cuBLAS's batch 16). set_half_variant(1 or 2) forces one, 0 restores the default.
  void set_half_variant(int variant) { half_variant_ = variant; }
  void linear_half(const float* x,  // [num_tokens, weight.cols]
                   int64_t num_tokens, const HalfLinearView& weight,
                   float* y);       // [num_tokens, weight.rows]
  void argmax(const float* logits,  // [num_rows, vocab]
              int64_t num_rows, int64_t vocab,
              int32_t* out);        // [num_rows]
  void sample(const float* logits,  // [num_rows, vocab]
              int64_t num_rows, int64_t vocab, const SamplingParams& params,
              const double* uniforms,  // [num_rows] in [0, 1)
              int32_t* out);           // [num_rows]

  // ---- fused decode operators (fused_dispatch.h chooses; specs in kernels/cpu/fused_reference.h)
  // A shape a fused kernel does not take runs today's unfused operators instead, same result.
  // (add +) RMSNorm writing half activations of `type` (what linear_from_half reads).
  void rms_norm_half(const float* x,       // [num_rows, dim]
                     const float* weight,  // [dim]
                     int64_t num_rows, int64_t dim, float eps, HalfType type,
                     uint16_t* out);           // [num_rows, dim]
  void add_rms_norm_half(float* residual,      // [num_rows, dim]
                         const float* x,       // [num_rows, dim]
                         const float* weight,  // [dim]
                         int64_t num_rows, int64_t dim, float eps, HalfType type,
                         uint16_t* out);  // [num_rows, dim]
  // y = x W^T from half activations of the weight's type: no conversion kernel. cuBLAS, or the
  // GEMV for <= kFusedGemvMaxTokens tokens when set_half_variant(1) forces it.
  void linear_from_half(const uint16_t* x,  // [num_tokens, weight.cols]
                        int64_t num_tokens, const HalfLinearView& weight,
                        float* y);  // [num_tokens, weight.rows]
  // RoPE + KV write from the stacked q/k/v GEMM output (choose_rope_kv_path; the separate path
  // copies q, k, v apart and runs rope + write_kv).
  void rope_write_kv(const float* qkv,  // [num_tokens, layout.row_stride()]
                     int64_t num_tokens, const QkvLayout& layout,
                     const int32_t* positions,  // [num_tokens]
                     const float* inv_freq,     // [head_dim / 2]
                     const KvCacheView& kv, int64_t layer,
                     const int64_t* slot_mapping,  // [num_tokens]
                     float* q_out);                // [num_tokens, num_heads, head_dim]
  // out = SwiGLU of the interleaved gate/up linear (2 * intermediate rows), half in and out:
  // the GEMV with the SwiGLU epilogue, or cuBLAS into fp32 then the pairs kernel
  // (choose_gate_up_path; set_gate_up_variant(1 or 2) forces one, 0 restores the choice).
  void gate_up_swiglu_half(const uint16_t* x,  // [num_tokens, gate_up.cols]
                           int64_t num_tokens, const HalfLinearView& gate_up,
                           uint16_t* out);  // [num_tokens, gate_up.rows / 2]
  // The same for any weight format with fp32 activations: the linear, then the pairs kernel.
  void gate_up_swiglu(const float* x,  // [num_tokens, gate_up.cols]
                      int64_t num_tokens, const LinearView& gate_up,
                      float* out);  // [num_tokens, gate_up.rows / 2]
  void set_gate_up_variant(int variant) { gate_up_variant_ = variant; }
  // Grows the fused operators' scratch (fused_scratch_bytes) before graph capture.
  void reserve_fused(const FusedLayerShape& shape);

 private:
  // Returns a scratch buffer of at least `bytes`, growing it outside graph capture only.
  void* scratch(DeviceBuffer<std::byte>& buffer, size_t bytes, const char* what);

  CudaDeviceInfo info_;
  cudaStream_t stream_ = nullptr;
  CudaMemory memory_{0, nullptr};  // set in the constructor, once the stream exists
  cublasHandle_t blas_ = nullptr;
  cublasLtHandle_t blas_lt_ = nullptr;
  DeviceBuffer<std::byte> blas_workspace_;      // cuBLAS and cuBLASLt workspace
  DeviceBuffer<std::byte> activation_scratch_;  // x converted to half or fp8 [tokens, cols]
  DeviceBuffer<std::byte> attention_scratch_;   // split-context partials
  DeviceBuffer<float> fp8_scale_;               // [2] per-tensor activation scale + scratch
  DeviceBuffer<std::byte> fused_scratch_;       // gate/up GEMM output, or the k / v copies
  int int8_variant_ = 0;
  int half_variant_ = 0;
  int attention_variant_ = 0;
  int gate_up_variant_ = 0;
  uint64_t scratch_generation_ = 0;
};

}  // namespace tidal::kernels::cuda
