// All weights of a Llama-family model (or of one tensor-parallel rank of it) in memory.
// Norms and embeddings stay fp32; every linear layer is a kernels::LinearWeight (fp32, int8 or
// fp8). Tensor names follow Hugging Face Llama / Mixtral.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
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

// Full-size fp32 weights of `config`, every tensor allocated and zero (filled by the loader or
// the random initializer).
ModelWeights empty_weights(const ModelConfig& config);

// Calls visit(name, shape, values) for every stored tensor of full fp32 weights, under its
// Hugging Face name, in checkpoint order; values is the vector holding it ([product(shape)]).
// Works on ModelWeights and const ModelWeights.
template <typename Weights, typename Visit>
void visit_tensors(Weights& w, Visit&& visit) {
  const ModelConfig& c = w.config;
  const int64_t hidden = c.hidden_size;
  const int64_t inter = c.intermediate_size;
  visit(std::string("model.embed_tokens.weight"), std::vector<int64_t>{c.vocab_size, hidden},
        w.embed_tokens);
  for (int64_t i = 0; i < c.num_layers; ++i) {
    auto& layer = w.layers[i];
    const std::string p = "model.layers." + std::to_string(i) + ".";
    visit(p + "input_layernorm.weight", std::vector<int64_t>{hidden}, layer.input_norm);
    visit(p + "self_attn.q_proj.weight", std::vector<int64_t>{c.q_size(), hidden},
          layer.q_proj.values);
    visit(p + "self_attn.k_proj.weight", std::vector<int64_t>{c.kv_size(), hidden},
          layer.k_proj.values);
    visit(p + "self_attn.v_proj.weight", std::vector<int64_t>{c.kv_size(), hidden},
          layer.v_proj.values);
    visit(p + "self_attn.o_proj.weight", std::vector<int64_t>{hidden, c.q_size()},
          layer.o_proj.values);
    visit(p + "post_attention_layernorm.weight", std::vector<int64_t>{hidden},
          layer.post_attn_norm);
    if (c.is_moe()) {
      visit(p + "block_sparse_moe.gate.weight", std::vector<int64_t>{c.num_local_experts, hidden},
            layer.router);
      for (int64_t e = 0; e < c.num_local_experts; ++e) {
        const std::string ep = p + "block_sparse_moe.experts." + std::to_string(e) + ".";
        visit(ep + "w1.weight", std::vector<int64_t>{inter, hidden}, layer.experts[e].gate.values);
        visit(ep + "w2.weight", std::vector<int64_t>{hidden, inter}, layer.experts[e].down.values);
        visit(ep + "w3.weight", std::vector<int64_t>{inter, hidden}, layer.experts[e].up.values);
      }
    } else {
      visit(p + "mlp.gate_proj.weight", std::vector<int64_t>{inter, hidden}, layer.mlp.gate.values);
      visit(p + "mlp.up_proj.weight", std::vector<int64_t>{inter, hidden}, layer.mlp.up.values);
      visit(p + "mlp.down_proj.weight", std::vector<int64_t>{hidden, inter}, layer.mlp.down.values);
    }
  }
  visit(std::string("model.norm.weight"), std::vector<int64_t>{hidden}, w.final_norm);
  if (!c.tie_word_embeddings) {
    visit(std::string("lm_head.weight"), std::vector<int64_t>{c.vocab_size, hidden},
          w.lm_head->values);
  }
}

// Calls visit(name, weight) for every linear layer (any format, full or sharded), the LM head
// included when it is stored: the layers weight quantization applies to.
template <typename Weights, typename Visit>
void visit_linears(Weights& w, Visit&& visit) {
  for (size_t i = 0; i < w.layers.size(); ++i) {
    auto& layer = w.layers[i];
    const std::string p = "model.layers." + std::to_string(i) + ".";
    visit(p + "self_attn.q_proj.weight", layer.q_proj);
    visit(p + "self_attn.k_proj.weight", layer.k_proj);
    visit(p + "self_attn.v_proj.weight", layer.v_proj);
    visit(p + "self_attn.o_proj.weight", layer.o_proj);
    if (w.config.is_moe()) {
      for (size_t e = 0; e < layer.experts.size(); ++e) {
        const std::string ep = p + "block_sparse_moe.experts." + std::to_string(e) + ".";
        visit(ep + "w1.weight", layer.experts[e].gate);
        visit(ep + "w2.weight", layer.experts[e].down);
        visit(ep + "w3.weight", layer.experts[e].up);
      }
    } else {
      visit(p + "mlp.gate_proj.weight", layer.mlp.gate);
      visit(p + "mlp.up_proj.weight", layer.mlp.up);
      visit(p + "mlp.down_proj.weight", layer.mlp.down);
    }
  }
  if (w.lm_head) visit(std::string("lm_head.weight"), *w.lm_head);
}

}  // namespace tidal::models
