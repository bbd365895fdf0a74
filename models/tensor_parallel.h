// Megatron-style tensor-parallel sharding as pure functions over full fp32 weights:
// column-parallel q/k/v and gate/up (each rank keeps its heads / its slice of the MLP columns),
// row-parallel o and down (each rank keeps the matching input columns; partial sums are
// all-reduced). Embeddings, norms, router and LM head are replicated. Quantize after sharding.
#pragma once

#include <string>

#include "models/config.h"
#include "models/model_weights.h"

namespace tidal::models {

// InputError naming `what` (e.g. "--tp") unless world_size >= 1 divides num_heads,
// num_kv_heads and intermediate_size.
void check_tensor_parallel(const ModelConfig& config, int world_size, const std::string& what);

// The weights rank `rank` of `world_size` holds; full must be unsharded and unquantized.
ModelWeights shard_weights(const ModelWeights& full, int rank, int world_size);

}  // namespace tidal::models
