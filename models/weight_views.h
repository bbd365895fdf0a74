// The weights a forward pass reads, as non-owning views: host views of a ModelWeights, or the
// views of a copy in a backend's memory (DeviceWeights). Same structure as ModelWeights; every
// pointer is memory of the backend the forward runs on.
#pragma once

#include <cstddef>
#include <vector>

#include "kernels/backend_memory.h"
#include "kernels/linear_weight.h"
#include "models/config.h"
#include "models/model_weights.h"

namespace tidal::models {

struct ExpertViews {
  kernels::LinearView gate;  // [intermediate, hidden]
  kernels::LinearView up;    // [intermediate, hidden]
  kernels::LinearView down;  // [hidden, intermediate]
};

struct LayerViews {
  const float* input_norm = nullptr;      // [hidden]
  kernels::LinearView q_proj;             // [num_heads * head_dim, hidden]
  kernels::LinearView k_proj;             // [num_kv_heads * head_dim, hidden]
  kernels::LinearView v_proj;             // [num_kv_heads * head_dim, hidden]
  kernels::LinearView o_proj;             // [hidden, num_heads * head_dim]
  const float* post_attn_norm = nullptr;  // [hidden]
  ExpertViews mlp;                        // dense layers only
  kernels::LinearView router;             // [num_experts, hidden] f32; MoE only
  std::vector<ExpertViews> experts;       // [num_experts]; MoE only
};

struct ModelWeightViews {
  ModelConfig config;  // the full model's config
  ShardInfo shard;
  const float* embed_tokens = nullptr;  // [vocab, hidden]
  std::vector<LayerViews> layers;       // [num_layers]
  const float* final_norm = nullptr;    // [hidden]
  kernels::LinearView lm_head;          // [vocab, hidden] (embed_tokens when tied)
};

// Views of `weights` in host memory (valid while `weights` lives and is not resized).
ModelWeightViews host_views(const ModelWeights& weights);

// A copy of ModelWeights (full or one rank's shard, any WeightFormat) in a backend's memory.
class DeviceWeights {
 public:
  // Copies every tensor through `memory` (which must outlive this object) and synchronizes.
  DeviceWeights(const ModelWeights& weights, kernels::BackendMemory& memory);
  const ModelWeightViews& views() const { return views_; }
  size_t bytes() const { return bytes_; }  // bytes copied (== weights.weight_bytes())

 private:
  std::vector<kernels::BackendBuffer> buffers_;  // one per stored tensor
  ModelWeightViews views_;
  size_t bytes_ = 0;
};

}  // namespace tidal::models
