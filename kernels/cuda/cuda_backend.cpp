#include "kernels/cuda/cuda_backend.h"

#include <stdexcept>
#include <string>

#include "kernels/cuda/blas_gemm.h"
#include "kernels/cuda/cuda_check.h"

namespace tidal::kernels::cuda {

namespace {

constexpr size_t kBlasWorkspaceBytes = size_t{32} << 20;
// Attention splits aim for at least this many key positions per block (8 per key stream of the
// vectorized kernel): short decode contexts still spread over several blocks per kv head.
constexpr int64_t kMinAttentionPartition = 64;

}  // namespace

CudaDeviceInfo device_info(int device) {
  cudaDeviceProp props{};
  TIDAL_CUDA_CHECK(cudaGetDeviceProperties(&props, device));
  CudaDeviceInfo info;
  info.device = device;
  info.compute_capability = props.major * 10 + props.minor;
  info.num_sms = props.multiProcessorCount;
  info.total_memory = props.totalGlobalMem;
  info.name = props.name;
  return info;
}

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" status
    return 0;
  }
  return count;
}

CudaBackend::CudaBackend(int device) : info_(device_info(device)) {
  TIDAL_CUDA_CHECK(cudaSetDevice(device));
  TIDAL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  memory_ = CudaMemory(device, stream_);
  TIDAL_CUBLAS_CHECK(cublasCreate(&blas_));
  TIDAL_CUBLAS_CHECK(cublasLtCreate(&blas_lt_));
  TIDAL_CUBLAS_CHECK(cublasSetStream(blas_, stream_));
  // An explicit workspace keeps cuBLAS from allocating during graph capture.
  blas_workspace_ = DeviceBuffer<std::byte>(kBlasWorkspaceBytes);
  TIDAL_CUBLAS_CHECK(cublasSetWorkspace(blas_, blas_workspace_.data(), blas_workspace_.bytes()));
  // fp32 GEMMs stay fp32 (no TF32), so they match the CPU reference closely.
  TIDAL_CUBLAS_CHECK(cublasSetMathMode(blas_, CUBLAS_DEFAULT_MATH));
  fp8_scale_ = DeviceBuffer<float>(2);
}

CudaBackend::~CudaBackend() {
  // Destructors cannot throw: release in reverse order and ignore statuses.
  cudaStreamSynchronize(stream_);
  cublasLtDestroy(blas_lt_);
  cublasDestroy(blas_);
  cudaStreamDestroy(stream_);
}

void CudaBackend::synchronize() {
  TIDAL_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void* CudaBackend::scratch(DeviceBuffer<std::byte>& buffer, size_t bytes, const char* what) {
  if (buffer.bytes() >= bytes) return buffer.data();
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  TIDAL_CUDA_CHECK(cudaStreamIsCapturing(stream_, &capture));
  if (capture != cudaStreamCaptureStatusNone) {
    throw CudaError(std::string("cuda backend: ") + what + " scratch must grow to " +
                    std::to_string(bytes) +
                    " bytes during graph capture; run the step once (or reserve_*) before "
                    "capturing");
  }
  TIDAL_CUDA_CHECK(cudaStreamSynchronize(stream_));  // kernels may still read the old buffer
  buffer = DeviceBuffer<std::byte>(bytes);
  ++scratch_generation_;
  return buffer.data();
}

void CudaBackend::reserve_linear(int64_t max_tokens, int64_t max_cols) {
  scratch(activation_scratch_, static_cast<size_t>(max_tokens * max_cols) * sizeof(uint16_t),
          "activation");
}

void CudaBackend::reserve_attention(const AttentionBatch& batch, int64_t block_size) {
  const AttentionSplit split = choose_attention_split(batch, block_size, kMinAttentionPartition);
  scratch(attention_scratch_,
          static_cast<size_t>(attention_workspace_floats(batch, split)) * sizeof(float),
          "attention");
}

void CudaBackend::embedding(const float* table, int64_t hidden, const int32_t* token_ids,
                            int64_t num_tokens, float* out) {
  launch_embedding(table, hidden, token_ids, num_tokens, out, stream_);
}

void CudaBackend::rms_norm(const float* x, const float* weight, int64_t num_rows, int64_t dim,
                           float eps, float* out) {
  launch_rms_norm(x, weight, num_rows, dim, eps, out, stream_);
}

void CudaBackend::add_rms_norm(float* residual, const float* x, const float* weight,
                               int64_t num_rows, int64_t dim, float eps, float* out) {
  launch_add_rms_norm(residual, x, weight, num_rows, dim, eps, out, stream_);
}

void CudaBackend::rope(float* q, float* k, const int32_t* positions, int64_t num_tokens,
                       int64_t num_heads, int64_t num_kv_heads, int64_t head_dim,
                       const float* inv_freq) {
  launch_rope(q, k, positions, num_tokens, num_heads, num_kv_heads, head_dim, inv_freq, stream_);
}

void CudaBackend::linear(const float* x, int64_t num_tokens, const LinearView& weight, float* y) {
  if (num_tokens == 0) return;
  switch (weight.format) {
    case WeightFormat::f32:
      gemm_f32(blas_, x, num_tokens, static_cast<const float*>(weight.data), weight.rows,
               weight.cols, y);
      return;
    case WeightFormat::int8:
      launch_int8_linear(x, num_tokens, weight, y, int8_variant_, stream_);
      return;
    case WeightFormat::fp8_e4m3: {
      if (info_.compute_capability < 90) {
        throw CudaError("cuda backend: fp8_e4m3 weights need an sm_90 GPU (cuBLASLt FP8 matmul); " +
                        info_.name + " is sm_" + std::to_string(info_.compute_capability) +
                        ": use int8 or f32 weights");
      }
      if (weight.cols % 16 != 0 || weight.rows % 4 != 0 || weight.group_size != weight.cols) {
        throw std::invalid_argument(
            "cuda backend: fp8_e4m3 linear needs cols % 16 == 0, rows % 4 == 0 and one scale per "
            "row; got rows " +
            std::to_string(weight.rows) + ", cols " + std::to_string(weight.cols));
      }
      auto* x_codes = static_cast<uint8_t*>(scratch(
          activation_scratch_, static_cast<size_t>(num_tokens * weight.cols), "activation"));
      launch_quantize_fp8_per_tensor(x, num_tokens * weight.cols, x_codes, fp8_scale_.data(),
                                     stream_);
      gemm_fp8(blas_lt_, x_codes, num_tokens, static_cast<const uint8_t*>(weight.data), weight.rows,
               weight.cols, y, blas_workspace_.data(), blas_workspace_.bytes(), stream_);
      launch_scale_columns(y, num_tokens, weight.rows, weight.scales, fp8_scale_.data(), stream_);
      return;
    }
    case WeightFormat::bf16:
    case WeightFormat::fp16:
      linear_half(
          x, num_tokens,
          HalfLinearView{weight.format == WeightFormat::bf16 ? HalfType::bf16 : HalfType::fp16,
                         weight.rows, weight.cols, static_cast<const uint16_t*>(weight.data)},
          y);
      return;
  }
  throw std::invalid_argument("cuda backend: unknown weight format");
}

void CudaBackend::linear_half(const float* x, int64_t num_tokens, const HalfLinearView& weight,
                              float* y) {
  if (num_tokens == 0) return;
  const int variant = half_variant_ != 0 ? half_variant_ : 2;
  if (variant == 1) {
    launch_half_gemv(x, num_tokens, weight.data, weight.type, weight.rows, weight.cols, y, stream_);
    return;
  }
  auto* x_half = static_cast<uint16_t*>(
      scratch(activation_scratch_, static_cast<size_t>(num_tokens * weight.cols) * sizeof(uint16_t),
              "activation"));
  launch_float_to_half(x, num_tokens * weight.cols, weight.type, x_half, stream_);
  gemm_half(blas_, x_half, num_tokens, weight.data, weight.type, weight.rows, weight.cols, y);
}

void CudaBackend::swiglu(const float* gate, const float* up, int64_t count, float* out) {
  launch_swiglu(gate, up, count, out, stream_);
}

void CudaBackend::add(float* y, const float* x, int64_t count) {
  launch_add(y, x, count, stream_);
}

void CudaBackend::write_kv(const KvCacheView& kv, int64_t layer, const float* k, const float* v,
                           const int64_t* slot_mapping, int64_t num_tokens) {
  launch_write_kv(kv, layer, k, v, slot_mapping, num_tokens, stream_);
}

void CudaBackend::paged_attention(const float* q, const KvCacheView& kv, int64_t layer,
                                  const AttentionBatch& batch, float scale, float* out) {
  const bool tensor_cores =
      attention_variant_ == 2 || (attention_variant_ == 0 && batch.num_tokens > batch.num_seqs &&
                                  prefill_attention_supported(kv.spec, batch));
  if (tensor_cores) {
    launch_prefill_attention(q, kv, layer, batch, scale, out, stream_);
    return;
  }
  const AttentionSplit split =
      choose_attention_split(batch, kv.spec.block_size, kMinAttentionPartition);
  auto* workspace = static_cast<float*>(scratch(
      attention_scratch_,
      static_cast<size_t>(attention_workspace_floats(batch, split)) * sizeof(float), "attention"));
  launch_paged_attention(q, kv, layer, batch, scale, split, workspace, out, stream_);
}

void CudaBackend::softmax(float* x, int64_t num_rows, int64_t num_cols) {
  launch_softmax(x, num_rows, num_cols, stream_);
}

void CudaBackend::moe_route(const float* router_logits, int64_t num_tokens, int64_t num_experts,
                            int64_t top_k, int32_t* expert_ids, float* expert_weights) {
  launch_moe_route(router_logits, num_tokens, num_experts, top_k, expert_ids, expert_weights,
                   stream_);
}

void CudaBackend::gather_rows(const float* src, const int32_t* rows, int64_t num_rows, int64_t dim,
                              float* out) {
  launch_gather_rows(src, rows, num_rows, dim, out, stream_);
}

void CudaBackend::scatter_add_rows(const float* src, const int32_t* rows, const float* weights,
                                   int64_t num_rows, int64_t dim, float* dst) {
  launch_scatter_add_rows(src, rows, weights, num_rows, dim, dst, stream_);
}

void CudaBackend::rms_norm_half(const float* x, const float* weight, int64_t num_rows, int64_t dim,
                                float eps, HalfType type, uint16_t* out) {
  launch_rms_norm_half(x, weight, num_rows, dim, eps, type, out, stream_);
}

void CudaBackend::add_rms_norm_half(float* residual, const float* x, const float* weight,
                                    int64_t num_rows, int64_t dim, float eps, HalfType type,
                                    uint16_t* out) {
  launch_add_rms_norm_half(residual, x, weight, num_rows, dim, eps, type, out, stream_);
}

void CudaBackend::linear_from_half(const uint16_t* x, int64_t num_tokens,
                                   const HalfLinearView& weight, float* y) {
  if (num_tokens == 0) return;
  if (half_variant_ == 1 && num_tokens <= kFusedGemvMaxTokens) {
    launch_half_gemv_from_half(x, num_tokens, weight.data, weight.type, weight.rows, weight.cols, y,
                               stream_);
    return;
  }
  gemm_half(blas_, x, num_tokens, weight.data, weight.type, weight.rows, weight.cols, y);
}

void CudaBackend::rope_write_kv(const float* qkv, int64_t num_tokens, const QkvLayout& layout,
                                const int32_t* positions, const float* inv_freq,
                                const KvCacheView& kv, int64_t layer, const int64_t* slot_mapping,
                                float* q_out) {
  if (num_tokens == 0) return;
  if (choose_rope_kv_path(layout.head_dim) == RopeKvPath::fused) {
    launch_rope_write_kv(qkv, layout, positions, num_tokens, inv_freq, kv, layer, slot_mapping,
                         q_out, stream_);
    return;
  }
  // Unfused: q, k, v copied apart (strided rows), then today's rope and write_kv.
  const int64_t q_width = layout.num_heads * layout.head_dim;
  const int64_t kv_width = layout.num_kv_heads * layout.head_dim;
  auto* k = static_cast<float*>(scratch(
      fused_scratch_, static_cast<size_t>(2 * num_tokens * kv_width) * sizeof(float), "fused"));
  float* v = k + num_tokens * kv_width;  // k, v: [num_tokens, num_kv_heads, head_dim] each
  const size_t pitch = static_cast<size_t>(layout.row_stride()) * sizeof(float);
  const auto copy_columns = [&](float* dst, int64_t offset, int64_t width) {
    TIDAL_CUDA_CHECK(
        cudaMemcpy2DAsync(dst, static_cast<size_t>(width) * sizeof(float), qkv + offset, pitch,
                          static_cast<size_t>(width) * sizeof(float),
                          static_cast<size_t>(num_tokens), cudaMemcpyDeviceToDevice, stream_));
  };
  copy_columns(q_out, layout.q_offset(), q_width);
  copy_columns(k, layout.k_offset(), kv_width);
  copy_columns(v, layout.v_offset(), kv_width);
  launch_rope(q_out, k, positions, num_tokens, layout.num_heads, layout.num_kv_heads,
              layout.head_dim, inv_freq, stream_);
  launch_write_kv(kv, layer, k, v, slot_mapping, num_tokens, stream_);
}

void CudaBackend::gate_up_swiglu_half(const uint16_t* x, int64_t num_tokens,
                                      const HalfLinearView& gate_up, uint16_t* out) {
  if (num_tokens == 0) return;
  const WeightFormat format =
      gate_up.type == HalfType::bf16 ? WeightFormat::bf16 : WeightFormat::fp16;
  GateUpPath path = choose_gate_up_path(num_tokens, gate_up.cols, format, true);
  if (gate_up_variant_ == 1) path = GateUpPath::gemv_swiglu_epilogue;
  if (gate_up_variant_ == 2) path = GateUpPath::gemm_then_swiglu_pairs;
  const int64_t intermediate = gate_up.rows / 2;
  if (path == GateUpPath::gemv_swiglu_epilogue && num_tokens <= kFusedGemvMaxTokens &&
      half_gemv_vectorizable(x, gate_up.data, gate_up.cols)) {
    launch_half_gemv_swiglu(x, num_tokens, gate_up.data, gate_up.type, intermediate, gate_up.cols,
                            out, stream_);
    return;
  }
  auto* pairs = static_cast<float*>(
      scratch(fused_scratch_, static_cast<size_t>(num_tokens * gate_up.rows) * sizeof(float),
              "fused"));  // [num_tokens, 2 * intermediate]
  gemm_half(blas_, x, num_tokens, gate_up.data, gate_up.type, gate_up.rows, gate_up.cols, pairs);
  launch_swiglu_pairs_half(pairs, num_tokens, intermediate, gate_up.type, out, stream_);
}

void CudaBackend::gate_up_swiglu(const float* x, int64_t num_tokens, const LinearView& gate_up,
                                 float* out) {
  if (num_tokens == 0) return;
  auto* pairs = static_cast<float*>(
      scratch(fused_scratch_, static_cast<size_t>(num_tokens * gate_up.rows) * sizeof(float),
              "fused"));  // [num_tokens, 2 * intermediate]
  linear(x, num_tokens, gate_up, pairs);
  launch_swiglu_pairs(pairs, num_tokens, gate_up.rows / 2, out, stream_);
}

void CudaBackend::reserve_fused(const FusedLayerShape& shape) {
  FusedLayerPlan plan = plan_fused_layer(shape);
  // Forced variants and fp32 gate/up use the pairs buffer whatever the plan picked.
  plan.gate_up = GateUpPath::gemm_then_swiglu_pairs;
  scratch(fused_scratch_, static_cast<size_t>(fused_scratch_bytes(shape, plan)), "fused");
}

void CudaBackend::argmax(const float* logits, int64_t num_rows, int64_t vocab, int32_t* out) {
  launch_argmax(logits, num_rows, vocab, out, stream_);
}

void CudaBackend::sample(const float* logits, int64_t num_rows, int64_t vocab,
                         const SamplingParams& params, const double* uniforms, int32_t* out) {
  launch_sample(logits, num_rows, vocab, params, uniforms, out, stream_);
}

}  // namespace tidal::kernels::cuda
