#include "kernels/cuda/fused_dispatch.h"

#include <stdexcept>

namespace tidal::kernels::cuda {
namespace {

void require_positive(int64_t value, const char* field) {
  if (value <= 0) {
    throw std::invalid_argument(std::string("fused layer: ") + field + " must be positive, got " +
                                std::to_string(value));
  }
}

void add_fallback(std::string& fallbacks, const std::string& text) {
  if (!fallbacks.empty()) fallbacks += "; ";
  fallbacks += text;
}

}  // namespace

bool is_half_format(WeightFormat format) {
  return format == WeightFormat::bf16 || format == WeightFormat::fp16;
}

RopeKvPath choose_rope_kv_path(int64_t head_dim) {
  const bool fits = head_dim > 0 && head_dim % 2 == 0 && head_dim <= kRopeKvMaxHeadDim;
  return fits ? RopeKvPath::fused : RopeKvPath::separate;
}

NormOutput choose_norm_output(WeightFormat weight_format) {
  return is_half_format(weight_format) ? NormOutput::half : NormOutput::f32;
}

GateUpPath choose_gate_up_path(int64_t num_tokens, int64_t cols, WeightFormat weight_format,
                               bool concatenated) {
  if (!concatenated) return GateUpPath::separate;
  const bool gemv =
      is_half_format(weight_format) && num_tokens <= kFusedGemvMaxTokens && cols % 8 == 0;
  return gemv ? GateUpPath::gemv_swiglu_epilogue : GateUpPath::gemm_then_swiglu_pairs;
}

FusedLayerPlan plan_fused_layer(const FusedLayerShape& shape) {
  require_positive(shape.num_tokens, "num_tokens");
  require_positive(shape.hidden, "hidden");
  require_positive(shape.num_heads, "num_heads");
  require_positive(shape.num_kv_heads, "num_kv_heads");
  require_positive(shape.head_dim, "head_dim");
  require_positive(shape.intermediate, "intermediate");
  FusedLayerPlan plan;
  plan.norm = choose_norm_output(shape.weight_format);
  plan.qkv_one_gemm = shape.qkv_concatenated;
  plan.rope_kv = choose_rope_kv_path(shape.head_dim);
  plan.gate_up = choose_gate_up_path(shape.num_tokens, shape.hidden, shape.weight_format,
                                     shape.gate_up_concatenated);
  plan.swiglu_to_half = is_half_format(shape.weight_format) && plan.gate_up != GateUpPath::separate;
  if (plan.norm == NormOutput::f32) {
    add_fallback(plan.fallbacks, std::string("norm: fp32 output (") +
                                     weight_format_name(shape.weight_format) +
                                     " linears read fp32 activations)");
  }
  if (!plan.qkv_one_gemm) add_fallback(plan.fallbacks, "qkv: no stacked weight");
  if (plan.rope_kv == RopeKvPath::separate) {
    add_fallback(plan.fallbacks, "rope_kv: head_dim " + std::to_string(shape.head_dim) +
                                     " not even or above " + std::to_string(kRopeKvMaxHeadDim));
  }
  if (plan.gate_up == GateUpPath::separate) {
    add_fallback(plan.fallbacks, "gate_up: no interleaved weight");
  } else if (plan.gate_up == GateUpPath::gemm_then_swiglu_pairs) {
    add_fallback(plan.fallbacks, "swiglu: pairs kernel after the GEMM (" +
                                     std::to_string(shape.num_tokens) + " tokens, " +
                                     weight_format_name(shape.weight_format) + ")");
  }
  // A half linear is one launch when it reads half activations, two (conversion + GEMM) from
  // fp32; other formats are one. Unfused: norm, q, k, v, rope, write_kv, attention, o, norm,
  // gate, up, swiglu, down.
  const int64_t half_conversion = is_half_format(shape.weight_format) ? 1 : 0;
  plan.unfused_launches = 13 + 7 * half_conversion;  // a conversion before each of 7 linears
  const bool half_in = plan.norm == NormOutput::half;
  const int64_t from_norm = half_in ? 0 : half_conversion;  // conversion before a linear
  plan.launches = 1                                         // norm
                  + (plan.qkv_one_gemm ? 1 + from_norm : 3 * (1 + from_norm))  //
                  + (plan.rope_kv == RopeKvPath::fused ? 1 : 2)                //
                  + 1                                                          // attention
                  + 1 + half_conversion  // o (fp32 attention output)
                  + 1;                   // norm
  switch (plan.gate_up) {
    case GateUpPath::separate:
      plan.launches += 2 * (1 + from_norm) + 1 + 1 + half_conversion;
      break;
    case GateUpPath::gemv_swiglu_epilogue:
      plan.launches += 1 + 1;  // GEMV with epilogue, down from half
      break;
    case GateUpPath::gemm_then_swiglu_pairs:
      plan.launches += 1 + from_norm + 1 + 1 + (plan.swiglu_to_half ? 0 : half_conversion);
      break;
  }
  return plan;
}

int64_t fused_scratch_bytes(const FusedLayerShape& shape, const FusedLayerPlan& plan) {
  int64_t bytes = 0;
  if (plan.gate_up == GateUpPath::gemm_then_swiglu_pairs) {
    bytes += shape.num_tokens * 2 * shape.intermediate * static_cast<int64_t>(sizeof(float));
  }
  if (plan.rope_kv == RopeKvPath::separate) {
    bytes += 2 * shape.num_tokens * shape.num_kv_heads * shape.head_dim *
             static_cast<int64_t>(sizeof(float));
  }
  return bytes;
}

}  // namespace tidal::kernels::cuda
