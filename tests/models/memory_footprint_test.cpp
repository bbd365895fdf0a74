// Memory footprint: weight bytes predicted from the config equal what quantized weights hold;
// KV bytes per token follow num_layers * 2 * num_kv_heads * head_dim * bytes.
#include <gtest/gtest.h>

#include "models/memory_footprint.h"
#include "models/presets.h"
#include "models/quantize_weights.h"
#include "models/random_weights.h"
#include "models/tensor_parallel.h"

namespace tidal::models {
namespace {

TEST(MemoryFootprint, WeightBytesMatchTheFormulaForEveryFormat) {
  for (const std::string preset : {"tiny", "tiny-llama3", "tiny-moe"}) {
    const ModelWeights full = random_weights(*find_preset(preset), 61);
    for (const std::string spec_text : {"none", "int8", "int8:g32", "int8:g64", "fp8"}) {
      const QuantSpec spec = parse_quant_spec(spec_text, "test");
      ModelWeights weights = full;
      quantize_weights(weights, spec);
      EXPECT_EQ(weights.weight_bytes(), weight_bytes_for(full.config, spec))
          << preset << " " << spec_text;
    }
    for (const std::string dtype : {"bf16", "fp16"}) {  // 2 bytes per linear weight
      const QuantSpec spec = apply_weight_dtype(QuantSpec{}, dtype, "test");
      ModelWeights weights = full;
      quantize_weights(weights, spec);
      EXPECT_EQ(weights.weight_bytes(), weight_bytes_for(full.config, spec)) << preset << dtype;
      EXPECT_LT(weights.weight_bytes(), full.weight_bytes());
    }
    EXPECT_EQ(full.weight_bytes(), static_cast<size_t>(full.config.num_parameters()) * 4);
  }
}

TEST(MemoryFootprint, KvBytesPerToken) {
  const ModelConfig c = *find_preset("small-100m");  // 12 layers, 4 kv heads, head_dim 64
  EXPECT_EQ(kv_bytes_per_token(c, kernels::KvDType::f32), 12u * 2 * 4 * 64 * 4);
  EXPECT_EQ(kv_bytes_per_token(c, kernels::KvDType::bf16), 12u * 2 * 4 * 64 * 2);
  EXPECT_EQ(kv_bytes_per_token(c, kernels::KvDType::int8), 12u * 2 * 4 * 64);
  const ModelWeights tiny = random_weights(*find_preset("tiny"), 62);
  const MemoryFootprint footprint = memory_footprint(tiny, kernels::KvDType::int8);
  EXPECT_EQ(footprint.kv_bytes_per_token, 2u * 2 * 2 * 16);
  EXPECT_EQ(footprint.kv_scale_bytes_per_token, 2u * 2 * 2 * 4);
  EXPECT_EQ(footprint.weight_bytes, tiny.weight_bytes());
  // A tensor-parallel rank holds its share of the KV heads.
  const ModelWeights shard = shard_weights(tiny, 0, 2);
  EXPECT_EQ(memory_footprint(shard, kernels::KvDType::bf16).kv_bytes_per_token,
            2u * 2 * 1 * 16 * 2);
  const kernels::KvCacheSpec spec = kv_cache_spec(tiny, 10, 16, kernels::KvDType::bf16);
  EXPECT_EQ(spec.data_bytes(), 10u * 16 * kv_bytes_per_token(tiny.config, kernels::KvDType::bf16));
}

}  // namespace
}  // namespace tidal::models
