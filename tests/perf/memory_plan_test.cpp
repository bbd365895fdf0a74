// Memory planning: weights, KV per token, KV block counts, and the errors for impossible layouts.
#include <gtest/gtest.h>

#include "base/input_error.h"
#include "perf/memory_plan.h"

namespace tidal::perf {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string error_of(const ModelSpec& model, const GpuSpec& gpu, const Deployment& d) {
  try {
    plan_memory(model, gpu, d, "scenario.json: fleet.pools[0]");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(MemoryPlan, Llama3_8bOnH100) {
  const ModelSpec& model = find_model("llama-3-8b", "t");
  const MemoryPlan plan = plan_memory(model, find_gpu("H100-SXM", "t"), Deployment{}, "p");
  EXPECT_NEAR(plan.weight_bytes_per_gpu, model.total_params() * 2.0, 1.0);
  // 2 (K, V) x 32 layers x 8 heads x 128 x 2 bytes.
  EXPECT_DOUBLE_EQ(plan.kv_bytes_per_token_per_gpu, 131072.0);
  const double usable = 80.0 * kGiB * 0.9;
  EXPECT_DOUBLE_EQ(plan.kv_cache_bytes_per_gpu,
                   usable - plan.weight_bytes_per_gpu - plan.activation_reserve_bytes);
  EXPECT_EQ(plan.num_kv_blocks,
            static_cast<int64_t>(plan.kv_cache_bytes_per_gpu / (16 * 131072.0)));
  EXPECT_GT(plan.num_kv_blocks, 20000);  // ~54 GiB of KV
}

TEST(MemoryPlan, TensorParallelHalvesWeightsPerGpu) {
  const ModelSpec& model = find_model("llama-3-70b", "t");
  const GpuSpec& gpu = find_gpu("H100-SXM", "t");
  Deployment tp2;
  tp2.tp = 2;
  Deployment tp4;
  tp4.tp = 4;
  const MemoryPlan p2 = plan_memory(model, gpu, tp2, "p");
  const MemoryPlan p4 = plan_memory(model, gpu, tp4, "p");
  EXPECT_NEAR(p4.weight_bytes_per_gpu / p2.weight_bytes_per_gpu, 0.5, 1e-4);
  EXPECT_DOUBLE_EQ(p4.kv_bytes_per_token_per_gpu * 2, p2.kv_bytes_per_token_per_gpu);
}

TEST(MemoryPlan, KvHeadsReplicateWhenTpExceedsThem) {
  const ModelSpec& model = find_model("llama-3-70b", "t");  // 8 KV heads
  EXPECT_EQ(kv_heads_per_gpu(model, 4), 2);
  EXPECT_EQ(kv_heads_per_gpu(model, 8), 1);
  EXPECT_EQ(kv_heads_per_gpu(model, 16), 1);
  Deployment tp16;
  tp16.tp = 16;
  EXPECT_EQ(plan_memory(model, find_gpu("H100-SXM", "t"), tp16, "p").kv_bytes_per_token_per_gpu,
            2.0 * 80 * 1 * 128 * 2);
}

TEST(MemoryPlan, EightBitKvDoublesKvBlocks) {
  const ModelSpec& model = find_model("llama-3-8b", "t");
  const GpuSpec& gpu = find_gpu("L40S", "t");
  for (DType kv : {DType::fp8, DType::int8}) {
    Deployment bf16;
    Deployment eight;
    eight.kv_dtype = kv;
    const MemoryPlan a = plan_memory(model, gpu, bf16, "p");
    const MemoryPlan b = plan_memory(model, gpu, eight, "p");
    EXPECT_DOUBLE_EQ(a.kv_cache_bytes_per_gpu, b.kv_cache_bytes_per_gpu);
    EXPECT_DOUBLE_EQ(b.kv_bytes_per_token_per_gpu * 2, a.kv_bytes_per_token_per_gpu);
    EXPECT_GE(b.num_kv_blocks, 2 * a.num_kv_blocks);
    EXPECT_LE(b.num_kv_blocks, 2 * a.num_kv_blocks + 1);
  }
}

TEST(MemoryPlan, QuantizedWeightsShrinkAllButEmbeddings) {
  const ModelSpec& model = find_model("llama-3-8b", "t");
  const GpuSpec& gpu = find_gpu("H100-SXM", "t");
  Deployment fp8;
  fp8.weight_dtype = DType::fp8;
  const double bf16_bytes = plan_memory(model, gpu, Deployment{}, "p").weight_bytes_per_gpu;
  const double fp8_bytes = plan_memory(model, gpu, fp8, "p").weight_bytes_per_gpu;
  // Embedding and LM head (2 x 128256 x 4096 params) stay bf16.
  const double embedding_bytes = model.embedding_params() * 2.0;
  EXPECT_NEAR(fp8_bytes - embedding_bytes, (bf16_bytes - embedding_bytes) / 2, 1e6);
}

TEST(MemoryPlan, MixtralMemoryCountsEveryExpert) {
  const ModelSpec& model = find_model("mixtral-8x7b", "t");
  Deployment tp2;
  tp2.tp = 2;
  const MemoryPlan plan = plan_memory(model, find_gpu("H100-SXM", "t"), tp2, "p");
  EXPECT_NEAR(plan.weight_bytes_per_gpu * 2, model.total_params() * 2.0,
              1e-3 * model.total_params());
  EXPECT_GT(plan.weight_bytes_per_gpu * 2, model.active_params() * 2.0 * 3);
}

TEST(MemoryPlan, SeventyBillionDoesNotFitOn24GB) {
  const std::string message =
      error_of(find_model("llama-2-70b", "t"), find_gpu("RTX-4090", "t"), Deployment{});
  EXPECT_EQ(message.rfind("scenario.json: fleet.pools[0]: llama-2-70b does not fit on RTX-4090 "
                          "at tp=1 (bf16 weights): weights 128.5 GiB",
                          0),
            0u)
      << message;
}

TEST(MemoryPlan, TpMustDivideHeads) {
  Deployment tp3;
  tp3.tp = 3;
  EXPECT_EQ(error_of(find_model("llama-3-8b", "t"), find_gpu("H100-SXM", "t"), tp3),
            "scenario.json: fleet.pools[0].tp: 3 does not divide num_heads 32 of llama-3-8b");
  Deployment tp7;
  tp7.tp = 7;
  EXPECT_EQ(error_of(find_model("qwen2.5-7b", "t"), find_gpu("H100-SXM", "t"), tp7),
            "scenario.json: fleet.pools[0].tp: 7 neither divides nor is a multiple of "
            "num_kv_heads 4 of qwen2.5-7b");
  Deployment zero;
  zero.tp = 0;
  EXPECT_EQ(error_of(find_model("llama-3-8b", "t"), find_gpu("H100-SXM", "t"), zero),
            "scenario.json: fleet.pools[0].tp: must be >= 1 (got 0)");
  Deployment util;
  util.gpu_memory_utilization = 1.5;
  EXPECT_EQ(error_of(find_model("llama-3-8b", "t"), find_gpu("H100-SXM", "t"), util),
            "scenario.json: fleet.pools[0].gpu_memory_utilization: must be in (0, 1] (got 1.5)");
}

// A deployment given by command-line options (`tidal profile import-kernel-db --tp 3`) has no
// JSON path: its fields are named alone.
TEST(MemoryPlan, FieldsNamedAloneWithoutAPath) {
  const ModelSpec& model = find_model("llama-3-8b", "t");
  const auto unnamed_error = [&](const Deployment& d) {
    try {
      check_deployment(model, d, "");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  Deployment tp3;
  tp3.tp = 3;
  EXPECT_EQ(unnamed_error(tp3), "tp: 3 does not divide num_heads 32 of llama-3-8b");
  Deployment ep3;
  ep3.ep = 3;
  EXPECT_EQ(unnamed_error(ep3), "ep: 3 needs an MoE model; llama-3-8b is dense");
}

}  // namespace
}  // namespace tidal::perf
