// Which fused decode operators a layer runs on the CUDA backend, and what scratch they need:
// plain C++ (no CUDA headers), compiled into tidal_kernels on every build so the choices are unit
// tested without a GPU (tests/kernels/fused_dispatch_test.cpp). CudaBackend's fused operators
// call these functions; a shape a fused kernel does not take falls back to today's unfused path.
//
// The fused layer (kernels/cuda/fused_decode.cu, specs in kernels/cpu/fused_reference.h):
//   norm     (add +) RMSNorm writing half activations when the linears take half weights
//   qkv      one GEMM over the stacked q/k/v weight (kernels/fused_weights.h)
//   rope_kv  RoPE of q and k and the KV write of k and v in one kernel
//   gate_up  one GEMM over the interleaved gate/up weight, SwiGLU in a GEMV's epilogue (decode)
//            or a pairs kernel after the GEMM (more tokens), output half for the down GEMM
#pragma once

#include <cstdint>
#include <string>

#include "kernels/kv_cache.h"
#include "kernels/linear_weight.h"

namespace tidal::kernels::cuda {

// The GEMV kernels take up to this many tokens (more run through cuBLAS).
inline constexpr int64_t kFusedGemvMaxTokens = 16;
// The fused RoPE + KV write rotates with head_dim / 2 threads per head (at most 256).
inline constexpr int64_t kRopeKvMaxHeadDim = 512;

enum class RopeKvPath : uint8_t { separate, fused };
enum class NormOutput : uint8_t { f32, half };
enum class GateUpPath : uint8_t { separate, gemv_swiglu_epilogue, gemm_then_swiglu_pairs };

// One decoder layer as the fused operators see it.
struct FusedLayerShape {
  int64_t num_tokens = 0;
  int64_t hidden = 0;
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;
  int64_t head_dim = 0;
  int64_t intermediate = 0;
  WeightFormat weight_format = WeightFormat::f32;
  KvDType kv_dtype = KvDType::bf16;
  bool qkv_concatenated = true;      // the layer holds a stacked q/k/v weight
  bool gate_up_concatenated = true;  // the layer holds an interleaved gate/up weight
};

bool is_half_format(WeightFormat format);  // bf16 or fp16

// Fused unless head_dim is odd, zero or above kRopeKvMaxHeadDim.
RopeKvPath choose_rope_kv_path(int64_t head_dim);
// Half activations out of the norm exactly when the linears read half weights.
NormOutput choose_norm_output(WeightFormat weight_format);
// The SwiGLU epilogue needs half weights, <= kFusedGemvMaxTokens tokens and cols % 8 == 0 (16-byte
// weight loads); otherwise one GEMM then the pairs kernel; `separate` without the concatenation.
GateUpPath choose_gate_up_path(int64_t num_tokens, int64_t cols, WeightFormat weight_format,
                               bool concatenated);

struct FusedLayerPlan {
  NormOutput norm = NormOutput::f32;
  bool qkv_one_gemm = false;
  RopeKvPath rope_kv = RopeKvPath::separate;
  GateUpPath gate_up = GateUpPath::separate;
  bool swiglu_to_half = false;   // the down GEMM reads half activations
  int64_t launches = 0;          // kernel launches of the layer (attention counted as one)
  int64_t unfused_launches = 0;  // today's unfused path, for comparison
  std::string fallbacks;         // "op: why" for each operator left unfused, "; "-separated
};

// std::invalid_argument naming the field when a dimension is not positive.
FusedLayerPlan plan_fused_layer(const FusedLayerShape& shape);

// Scratch bytes CudaBackend's fused operators use for `shape` under `plan`: the fp32 gate/up
// GEMM output [tokens, 2 * intermediate] on the pairs path, and the k / v copies
// [2, tokens, kv_heads, head_dim] fp32 the separate RoPE + KV write path rotates.
int64_t fused_scratch_bytes(const FusedLayerShape& shape, const FusedLayerPlan& plan);

}  // namespace tidal::kernels::cuda
