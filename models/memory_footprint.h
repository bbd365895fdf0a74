// Memory a model needs: stored weight bytes and KV cache bytes per token.
#pragma once

#include <cstddef>

#include "kernels/kv_cache.h"
#include "models/config.h"
#include "models/model_weights.h"
#include "models/quantize_weights.h"

namespace tidal::models {

struct MemoryFootprint {
  size_t weight_bytes = 0;
  size_t kv_bytes_per_token = 0;        // num_layers*2*num_kv_heads*head_dim*bytes(dtype)
  size_t kv_scale_bytes_per_token = 0;  // int8 KV only: num_layers*2*num_kv_heads*4
};

// kv heads are those of the shard (per rank) when the weights are sharded.
MemoryFootprint memory_footprint(const ModelWeights& weights, kernels::KvDType kv_dtype);
size_t kv_bytes_per_token(const ModelConfig& config, kernels::KvDType kv_dtype);

// What the full model holds after load_weights + quantize_weights(spec), from the config alone
// (InputError when the group size does not divide a layer's input width).
size_t weight_bytes_for(const ModelConfig& config, const QuantSpec& spec);

// The arena spec for these weights (per-rank kv heads), num_blocks x block_size slots.
kernels::KvCacheSpec kv_cache_spec(const ModelWeights& weights, int64_t num_blocks,
                                   int64_t block_size, kernels::KvDType kv_dtype);

}  // namespace tidal::models
