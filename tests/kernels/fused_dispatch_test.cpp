// The CUDA backend's fused-operator choices, on the CPU: which shapes take each fused kernel,
// which fall back to the unfused operators and why, the launches a layer saves and the scratch
// the fused operators need.
#include "kernels/cuda/fused_dispatch.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tidal::kernels::cuda {
namespace {

FusedLayerShape llama3_8b(int64_t num_tokens, WeightFormat format) {
  FusedLayerShape shape;
  shape.num_tokens = num_tokens;
  shape.hidden = 4096;
  shape.num_heads = 32;
  shape.num_kv_heads = 8;
  shape.head_dim = 128;
  shape.intermediate = 14336;
  shape.weight_format = format;
  return shape;
}

TEST(FusedDispatch, RopeKvFusesEvenHeadDimsUpTo512) {
  for (const int64_t head_dim : {2, 64, 80, 128, 256, 512}) {
    EXPECT_EQ(choose_rope_kv_path(head_dim), RopeKvPath::fused) << head_dim;
  }
  for (const int64_t head_dim : {0, 1, 63, 514, 1024}) {
    EXPECT_EQ(choose_rope_kv_path(head_dim), RopeKvPath::separate) << head_dim;
  }
}

TEST(FusedDispatch, NormWritesHalfOnlyForHalfLinears) {
  EXPECT_EQ(choose_norm_output(WeightFormat::bf16), NormOutput::half);
  EXPECT_EQ(choose_norm_output(WeightFormat::fp16), NormOutput::half);
  EXPECT_EQ(choose_norm_output(WeightFormat::f32), NormOutput::f32);
  EXPECT_EQ(choose_norm_output(WeightFormat::int8), NormOutput::f32);
  EXPECT_EQ(choose_norm_output(WeightFormat::fp8_e4m3), NormOutput::f32);
}

TEST(FusedDispatch, GateUpEpilogueForDecodeBatchesOfHalfWeights) {
  EXPECT_EQ(choose_gate_up_path(1, 4096, WeightFormat::bf16, true),
            GateUpPath::gemv_swiglu_epilogue);
  EXPECT_EQ(choose_gate_up_path(kFusedGemvMaxTokens, 4096, WeightFormat::fp16, true),
            GateUpPath::gemv_swiglu_epilogue);
  EXPECT_EQ(choose_gate_up_path(kFusedGemvMaxTokens + 1, 4096, WeightFormat::bf16, true),
            GateUpPath::gemm_then_swiglu_pairs);
  EXPECT_EQ(choose_gate_up_path(1, 4100, WeightFormat::bf16, true),  // no 16-byte loads
            GateUpPath::gemm_then_swiglu_pairs);
  EXPECT_EQ(choose_gate_up_path(1, 4096, WeightFormat::int8, true),
            GateUpPath::gemm_then_swiglu_pairs);
  EXPECT_EQ(choose_gate_up_path(1, 4096, WeightFormat::bf16, false), GateUpPath::separate);
}

TEST(FusedDispatch, Bf16DecodeLayerFusesEverything) {
  const FusedLayerPlan plan = plan_fused_layer(llama3_8b(1, WeightFormat::bf16));
  EXPECT_EQ(plan.norm, NormOutput::half);
  EXPECT_TRUE(plan.qkv_one_gemm);
  EXPECT_EQ(plan.rope_kv, RopeKvPath::fused);
  EXPECT_EQ(plan.gate_up, GateUpPath::gemv_swiglu_epilogue);
  EXPECT_TRUE(plan.swiglu_to_half);
  EXPECT_EQ(plan.fallbacks, "");
  // norm, qkv, rope_kv, attention, o (conversion + GEMM), norm, gate_up + SwiGLU, down.
  EXPECT_EQ(plan.launches, 9);
  EXPECT_EQ(plan.unfused_launches, 20);
}

TEST(FusedDispatch, Bf16PrefillLayerRunsThePairsKernel) {
  const FusedLayerPlan plan = plan_fused_layer(llama3_8b(4096, WeightFormat::bf16));
  EXPECT_EQ(plan.gate_up, GateUpPath::gemm_then_swiglu_pairs);
  EXPECT_TRUE(plan.swiglu_to_half);
  EXPECT_EQ(plan.fallbacks, "swiglu: pairs kernel after the GEMM (4096 tokens, bf16)");
  EXPECT_EQ(plan.launches, 10);
}

TEST(FusedDispatch, Int8LayerKeepsFp32ActivationsAndNamesWhy) {
  const FusedLayerPlan plan = plan_fused_layer(llama3_8b(1, WeightFormat::int8));
  EXPECT_EQ(plan.norm, NormOutput::f32);
  EXPECT_FALSE(plan.swiglu_to_half);
  EXPECT_EQ(plan.gate_up, GateUpPath::gemm_then_swiglu_pairs);
  EXPECT_EQ(plan.fallbacks,
            "norm: fp32 output (int8 linears read fp32 activations); swiglu: pairs kernel after "
            "the GEMM (1 tokens, int8)");
  // norm, qkv, rope_kv, attention, o, norm, gate_up, swiglu pairs, down.
  EXPECT_EQ(plan.launches, 9);
  EXPECT_EQ(plan.unfused_launches, 13);
}

TEST(FusedDispatch, UnsupportedShapesFallBackToTheUnfusedPath) {
  FusedLayerShape shape = llama3_8b(1, WeightFormat::bf16);
  shape.head_dim = 1024;
  shape.qkv_concatenated = false;
  shape.gate_up_concatenated = false;
  const FusedLayerPlan plan = plan_fused_layer(shape);
  EXPECT_FALSE(plan.qkv_one_gemm);
  EXPECT_EQ(plan.rope_kv, RopeKvPath::separate);
  EXPECT_EQ(plan.gate_up, GateUpPath::separate);
  EXPECT_FALSE(plan.swiglu_to_half);
  EXPECT_EQ(plan.fallbacks,
            "qkv: no stacked weight; rope_kv: head_dim 1024 not even or above 512; gate_up: no "
            "interleaved weight");
  // Only the norm's half output is left: q, k, v, gate and up need no conversion kernel.
  EXPECT_EQ(plan.launches, plan.unfused_launches - 5);
}

TEST(FusedDispatch, ScratchCoversThePairsOutputAndTheKvCopies) {
  const FusedLayerShape decode = llama3_8b(1, WeightFormat::bf16);
  EXPECT_EQ(fused_scratch_bytes(decode, plan_fused_layer(decode)), 0);
  const FusedLayerShape prefill = llama3_8b(4096, WeightFormat::bf16);
  EXPECT_EQ(fused_scratch_bytes(prefill, plan_fused_layer(prefill)), 4096LL * 2 * 14336 * 4);
  FusedLayerShape odd = llama3_8b(8, WeightFormat::f32);
  odd.head_dim = 1023;
  EXPECT_EQ(fused_scratch_bytes(odd, plan_fused_layer(odd)),
            8LL * 2 * 14336 * 4 + 2LL * 8 * 8 * 1023 * 4);
}

TEST(FusedDispatch, NonPositiveDimensionsAreRejectedByName) {
  FusedLayerShape shape = llama3_8b(1, WeightFormat::bf16);
  shape.intermediate = 0;
  try {
    plan_fused_layer(shape);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "fused layer: intermediate must be positive, got 0");
  }
}

}  // namespace
}  // namespace tidal::kernels::cuda
