// All weights of a Llama-family model (or of one tensor-parallel rank of it) in memory.
// Norms and embeddings stay fp32; every linear layer is a kernels::LinearWeight (fp32, int8 or
// fp8). Tensor names follow Hugging Face Llama / Mixtral.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/linear_weight.h"
#include "models/config.h"

namespace tidal::models {

// Which slice of the full model these weights are (Megatron tensor parallelism).
struct ShardInfo {
  int rank = 0;
  int world_size = 1;
  int64_t num_heads = 0;          // query heads on this rank
  int64_t num_kv_heads = 0;       // kv heads on this rank
  int64_t intermediate_size = 0;  // MLP (per expert) columns on this rank
};

struct ExpertWeights {
  kernels::LinearWeight gate;  // w1 / gate_proj [intermediate, hidden]
  kernels::LinearWeight up;    // w3 / up_proj   [intermediate, hidden]
  kernels::LinearWeight down;  // w2 / down_proj [hidden, intermediate]
};

struct LayerWeights {
  std::vector<float> input_norm;       // [hidden]
  kernels::LinearWeight q_proj;        // [num_heads * head_dim, hidden]
  kernels::LinearWeight k_proj;        // [num_kv_heads * head_dim, hidden]
  kernels::LinearWeight v_proj;        // [num_kv_heads * head_dim, hidden]
  kernels::LinearWeight o_proj;        // [hidden, num_heads * head_dim]
  std::vector<float> post_attn_norm;   // [hidden]
  ExpertWeights mlp;                   // dense layers only
  std::vector<float> router;           // [num_experts, hidden]; MoE only (kept fp32)
  std::vector<ExpertWeights> experts;  // [num_experts]; MoE only
};

struct ModelWeights {
  ModelConfig config;  // always the full model's config
  ShardInfo shard;
  std::vector<float> embed_tokens;   // [vocab, hidden]
  std::vector<LayerWeights> layers;  // [num_layers]
  std::vector<float> final_norm;     // [hidden]
  // [vocab, hidden]; absent when tied and unquantized (the head then reads embed_tokens).
  std::optional<kernels::LinearWeight> lm_head;

  kernels::LinearView lm_head_view() const;
  size_t weight_bytes() const;  // every stored byte: values, codes and scales
};

// ShardInfo of an unsharded model.
ShardInfo full_shard(const ModelConfig& config);

}  // namespace tidal::models
