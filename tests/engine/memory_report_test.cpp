// The engine's memory footprint against the catalog formulas: models::weight_bytes_for per
// rank, and the KV bytes per token that perf's plan_memory charges per GPU.
#include <gtest/gtest.h>

#include "base/input_error.h"
#include "engine/engine.h"
#include "perf/memory_plan.h"
#include "tests/engine/engine_test_support.h"

namespace tidal::engine {
namespace {

// The perf catalog's description of a models::ModelConfig.
perf::ModelSpec perf_spec(const models::ModelConfig& c) {
  perf::ModelSpec m;
  m.name = "test-model";
  m.num_layers = c.num_layers;
  m.hidden = c.hidden_size;
  m.num_heads = c.num_heads;
  m.num_kv_heads = c.num_kv_heads;
  m.head_dim = c.head_dim;
  m.intermediate = c.intermediate_size;
  m.vocab = c.vocab_size;
  m.tied_embeddings = c.tie_word_embeddings;
  m.max_position = c.max_position_embeddings;
  return m;
}

perf::DType perf_dtype(kernels::KvDType dtype) {
  switch (dtype) {
    case kernels::KvDType::f32:
      return perf::DType::fp32;
    case kernels::KvDType::bf16:
      return perf::DType::bf16;
    case kernels::KvDType::int8:
      return perf::DType::int8;
  }
  return perf::DType::bf16;
}

TEST(MemoryReport, MatchesTheFormulasForEveryFormatAndDegree) {
  const models::ModelConfig model = testing::tp4_config();
  for (const char* quant : {"none", "int8", "int8:g32", "fp8"}) {
    for (kernels::KvDType kv :
         {kernels::KvDType::f32, kernels::KvDType::bf16, kernels::KvDType::int8}) {
      for (int tp : {1, 2, 4}) {
        SCOPED_TRACE(std::string(quant) + " kv " + kernels::kv_dtype_name(kv) + " tp " +
                     std::to_string(tp));
        EngineConfig config = testing::small_config();
        config.quant = models::parse_quant_spec(quant, "--quant");
        config.kv_dtype = kv;
        config.tp = tp;
        config.num_gpu_blocks = 10;
        config.num_cpu_blocks = 3;
        if (std::string(quant) == "int8:g32" && tp == 4) {
          // o_proj's input per rank is 64 / 4 = 16 columns: no 32-column groups.
          EXPECT_THROW(Engine(models::random_weights(model, 2), config), InputError);
          continue;
        }
        Engine engine(models::random_weights(model, 2), config);
        const MemoryReport& m = engine.memory();
        EXPECT_TRUE(m.weights_match_formula())
            << m.weight_bytes_per_rank << " vs " << m.formula_weight_bytes_per_rank;
        EXPECT_TRUE(m.kv_matches_formula());
        EXPECT_EQ(m.num_gpu_blocks, 10);
        // perf charges num_layers * 2 * kv heads per GPU * head_dim * dtype bytes.
        perf::Deployment deployment;
        deployment.tp = tp;
        deployment.kv_dtype = perf_dtype(kv);
        deployment.weight_dtype = perf::DType::bf16;
        const perf::MemoryPlan plan = perf::plan_memory(
            perf_spec(model), perf::find_gpu("H100-SXM", "gpu"), deployment, "test");
        EXPECT_EQ(static_cast<double>(m.kv_bytes_per_token_per_rank),
                  plan.kv_bytes_per_token_per_gpu);
        // 2 layers x 2 x (4 / tp) heads x 16 dims x element bytes.
        EXPECT_EQ(m.kv_bytes_per_token_per_rank,
                  static_cast<size_t>(2 * 2 * (4 / tp) * 16) * kernels::kv_element_bytes(kv));
        EXPECT_EQ(m.kv_scale_bytes_per_token_per_rank,
                  kv == kernels::KvDType::int8 ? static_cast<size_t>(2 * 2 * (4 / tp) * 4) : 0u);
        EXPECT_GT(m.host_arena_bytes_per_rank, 0u);
        if (tp == 1) {
          EXPECT_EQ(m.weight_bytes_total, m.weight_bytes_per_rank);
        }
      }
    }
  }
}

TEST(MemoryReport, QuantizedWeightsAreSmaller) {
  models::ModelConfig model = testing::tiny_config();
  model.hidden_size = 256;
  model.intermediate_size = 512;
  model.num_layers = 4;
  model.head_dim = 64;
  model.tie_word_embeddings = true;
  EngineConfig config = testing::small_config();
  config.num_gpu_blocks = 1;
  size_t f32_bytes = 0;
  for (const char* quant : {"none", "int8", "fp8"}) {
    config.quant = models::parse_quant_spec(quant, "--quant");
    Engine engine(models::random_weights(model, 2), config);
    const MemoryReport& m = engine.memory();
    EXPECT_TRUE(m.weights_match_formula()) << quant;
    if (std::string(quant) == "none") {
      f32_bytes = m.weight_bytes_per_rank;
      EXPECT_EQ(f32_bytes, static_cast<size_t>(model.num_parameters()) * 4);
    } else {
      EXPECT_LT(m.weight_bytes_per_rank, f32_bytes * 6 / 10) << quant;
    }
  }
}

}  // namespace
}  // namespace tidal::engine
