// The oracle forward pass, one token at a time, in the style of llama2.c's run.c. It calls only
// the plain reference kernels and keeps a contiguous fp32 KV cache per layer.
#include "models/reference_forward.h"

#include <cmath>
#include <stdexcept>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/embedding.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/moe_routing.h"
#include "kernels/cpu/paged_attention.h"
#include "kernels/cpu/rms_norm.h"
#include "kernels/cpu/rope.h"
#include "kernels/rope_frequencies.h"

namespace tidal::models {

namespace ref = kernels::reference;

namespace {

// y = W x for one token: [w.rows]
std::vector<float> matvec(const kernels::LinearWeight& w, const std::vector<float>& x) {
  std::vector<float> y(w.rows);
  ref::linear(x.data(), 1, w.view(), y.data());
  return y;
}

// down(silu(gate x) * up x): [hidden]
std::vector<float> swiglu_mlp(const ExpertWeights& mlp, const std::vector<float>& x) {
  std::vector<float> gate = matvec(mlp.gate, x);    // [intermediate]
  const std::vector<float> up = matvec(mlp.up, x);  // [intermediate]
  ref::swiglu(gate.data(), up.data(), static_cast<int64_t>(gate.size()), gate.data());
  return matvec(mlp.down, gate);
}

}  // namespace

ReferenceForward::ReferenceForward(const ModelWeights& weights)
    : w_(weights),
      inv_freq_(kernels::rope_inv_freq(weights.config.head_dim, weights.config.rope_theta,
                                       weights.config.rope_scaling)),
      key_cache_(weights.config.num_layers),
      value_cache_(weights.config.num_layers) {
  if (weights.shard.world_size != 1) {
    throw std::invalid_argument("ReferenceForward: needs full (unsharded) weights");
  }
}

std::vector<float> ReferenceForward::step(int32_t token) {
  const ModelConfig& c = w_.config;
  const int64_t hidden = c.hidden_size;
  const int64_t d = c.head_dim;
  const int32_t pos = static_cast<int32_t>(num_tokens_);
  const float eps = static_cast<float>(c.rms_eps);

  std::vector<float> x(hidden);  // [hidden] the residual stream
  ref::embedding(w_.embed_tokens.data(), hidden, &token, 1, x.data());
  std::vector<float> xb(hidden);  // [hidden] normed input of a sublayer

  for (int64_t l = 0; l < c.num_layers; ++l) {
    const LayerWeights& layer = w_.layers[l];

    // attention
    ref::rms_norm(x.data(), layer.input_norm.data(), 1, hidden, eps, xb.data());
    std::vector<float> q = matvec(layer.q_proj, xb);  // [num_heads, head_dim]
    std::vector<float> k = matvec(layer.k_proj, xb);  // [num_kv_heads, head_dim]
    std::vector<float> v = matvec(layer.v_proj, xb);  // [num_kv_heads, head_dim]
    ref::rope(q.data(), k.data(), &pos, 1, c.num_heads, c.num_kv_heads, d, inv_freq_.data());
    key_cache_[l].insert(key_cache_[l].end(), k.begin(), k.end());
    value_cache_[l].insert(value_cache_[l].end(), v.begin(), v.end());
    std::vector<float> attn(c.num_heads * d);  // [num_heads, head_dim]
    ref::contiguous_attention(q.data(), key_cache_[l].data(), value_cache_[l].data(), 1, pos + 1,
                              c.num_heads, c.num_kv_heads, d,
                              1.0f / std::sqrt(static_cast<float>(d)), attn.data());
    const std::vector<float> attn_proj = matvec(layer.o_proj, attn);  // [hidden]
    for (int64_t i = 0; i < hidden; ++i) x[i] += attn_proj[i];

    // MLP (dense, or the weighted sum of the top-k experts)
    ref::rms_norm(x.data(), layer.post_attn_norm.data(), 1, hidden, eps, xb.data());
    std::vector<float> mlp_out(hidden, 0.0f);  // [hidden]
    if (c.is_moe()) {
      std::vector<float> router_logits(c.num_local_experts);  // [num_experts]
      for (int64_t e = 0; e < c.num_local_experts; ++e) {
        float acc = 0.0f;
        for (int64_t i = 0; i < hidden; ++i) acc += layer.router[e * hidden + i] * xb[i];
        router_logits[e] = acc;
      }
      std::vector<int32_t> experts(c.num_experts_per_tok);       // [top_k]
      std::vector<float> expert_weights(c.num_experts_per_tok);  // [top_k]
      ref::moe_route(router_logits.data(), 1, c.num_local_experts, c.num_experts_per_tok,
                     experts.data(), expert_weights.data());
      for (int64_t j = 0; j < c.num_experts_per_tok; ++j) {
        const std::vector<float> expert_out = swiglu_mlp(layer.experts[experts[j]], xb);
        for (int64_t i = 0; i < hidden; ++i) mlp_out[i] += expert_weights[j] * expert_out[i];
      }
    } else {
      mlp_out = swiglu_mlp(layer.mlp, xb);
    }
    for (int64_t i = 0; i < hidden; ++i) x[i] += mlp_out[i];
  }

  ref::rms_norm(x.data(), w_.final_norm.data(), 1, hidden, eps, xb.data());
  std::vector<float> logits(c.vocab_size);  // [vocab]
  ref::linear(xb.data(), 1, w_.lm_head_view(), logits.data());
  ++num_tokens_;
  return logits;
}

std::vector<float> ReferenceForward::run(std::span<const int32_t> tokens) {
  std::vector<float> all;  // [tokens.size(), vocab]
  all.reserve(tokens.size() * w_.config.vocab_size);
  for (int32_t token : tokens) {
    const std::vector<float> logits = step(token);
    all.insert(all.end(), logits.begin(), logits.end());
  }
  return all;
}

}  // namespace tidal::models
