#include "models/memory_footprint.h"

#include <string>

#include "base/input_error.h"

namespace tidal::models {

size_t kv_bytes_per_token(const ModelConfig& config, kernels::KvDType kv_dtype) {
  return static_cast<size_t>(config.num_layers * 2 * config.num_kv_heads * config.head_dim) *
         kernels::kv_element_bytes(kv_dtype);
}

kernels::KvCacheSpec kv_cache_spec(const ModelWeights& weights, int64_t num_blocks,
                                   int64_t block_size, kernels::KvDType kv_dtype) {
  kernels::KvCacheSpec spec;
  spec.num_layers = weights.config.num_layers;
  spec.num_blocks = num_blocks;
  spec.block_size = block_size;
  spec.num_kv_heads = weights.shard.num_kv_heads;
  spec.head_dim = weights.config.head_dim;
  spec.dtype = kv_dtype;
  return spec;
}

MemoryFootprint memory_footprint(const ModelWeights& weights, kernels::KvDType kv_dtype) {
  const kernels::KvCacheSpec spec = kv_cache_spec(weights, 1, 1, kv_dtype);
  MemoryFootprint footprint;
  footprint.weight_bytes = weights.weight_bytes();
  footprint.kv_bytes_per_token = spec.data_bytes_per_token();
  footprint.kv_scale_bytes_per_token = spec.scale_bytes_per_token();
  return footprint;
}

}  // namespace tidal::models

namespace tidal::models {

namespace {

size_t linear_bytes(int64_t rows, int64_t cols, const QuantSpec& spec, const std::string& name) {
  switch (spec.format) {
    case kernels::WeightFormat::f32:
      return static_cast<size_t>(rows * cols) * sizeof(float);
    case kernels::WeightFormat::int8: {
      const int64_t group = spec.group_size == 0 ? cols : spec.group_size;
      if (cols % group != 0) {
        throw InputError("quantization " + quant_spec_name(spec) + ": group size " +
                         std::to_string(group) + " does not divide the input width " +
                         std::to_string(cols) + " of " + name);
      }
      return static_cast<size_t>(rows * cols + rows * (cols / group) * 4);
    }
    case kernels::WeightFormat::fp8_e4m3:
      return static_cast<size_t>(rows * cols + rows * 4);
    case kernels::WeightFormat::bf16:
    case kernels::WeightFormat::fp16:
      return static_cast<size_t>(rows * cols) * sizeof(uint16_t);
  }
  return 0;
}

}  // namespace

size_t weight_bytes_for(const ModelConfig& c, const QuantSpec& spec) {
  const int64_t hidden = c.hidden_size;
  const int64_t inter = c.intermediate_size;
  size_t bytes = static_cast<size_t>(c.vocab_size * hidden + (2 * c.num_layers + 1) * hidden +
                                     c.num_layers * c.num_local_experts * hidden) *
                 sizeof(float);
  const size_t attention = linear_bytes(c.q_size(), hidden, spec, "q_proj") +
                           2 * linear_bytes(c.kv_size(), hidden, spec, "k_proj") +
                           linear_bytes(hidden, c.q_size(), spec, "o_proj");
  const size_t mlp = 2 * linear_bytes(inter, hidden, spec, "gate_proj") +
                     linear_bytes(hidden, inter, spec, "down_proj");
  bytes += static_cast<size_t>(c.num_layers) *
           (attention + mlp * static_cast<size_t>(c.is_moe() ? c.num_local_experts : 1));
  const bool head_shares_embeddings =
      c.tie_word_embeddings && spec.format == kernels::WeightFormat::f32;
  if (!head_shares_embeddings) bytes += linear_bytes(c.vocab_size, hidden, spec, "lm_head");
  return bytes;
}

}  // namespace tidal::models
