#include "models/model_weights.h"

namespace tidal::models {

kernels::LinearView ModelWeights::lm_head_view() const {
  if (lm_head) return lm_head->view();
  kernels::LinearView view;
  view.format = kernels::WeightFormat::f32;
  view.rows = config.vocab_size;
  view.cols = config.hidden_size;
  view.group_size = config.hidden_size;
  view.data = embed_tokens.data();
  return view;
}

size_t ModelWeights::weight_bytes() const {
  size_t bytes = (embed_tokens.size() + final_norm.size()) * sizeof(float);
  for (const LayerWeights& layer : layers) {
    bytes += (layer.input_norm.size() + layer.post_attn_norm.size() + layer.router.size()) *
             sizeof(float);
  }
  visit_linears(*this,
                [&](const std::string&, const kernels::LinearWeight& w) { bytes += w.bytes(); });
  return bytes;
}

ShardInfo full_shard(const ModelConfig& config) {
  ShardInfo shard;
  shard.num_heads = config.num_heads;
  shard.num_kv_heads = config.num_kv_heads;
  shard.intermediate_size = config.intermediate_size;
  return shard;
}

namespace {

kernels::LinearWeight zero_linear(int64_t rows, int64_t cols) {
  return kernels::make_f32_linear(std::vector<float>(rows * cols), rows, cols);
}

ExpertWeights zero_mlp(const ModelConfig& c) {
  return {zero_linear(c.intermediate_size, c.hidden_size),
          zero_linear(c.intermediate_size, c.hidden_size),
          zero_linear(c.hidden_size, c.intermediate_size)};
}

}  // namespace

ModelWeights empty_weights(const ModelConfig& c) {
  ModelWeights w;
  w.config = c;
  w.shard = full_shard(c);
  w.embed_tokens.assign(c.vocab_size * c.hidden_size, 0.0f);
  w.layers.resize(c.num_layers);
  for (LayerWeights& layer : w.layers) {
    layer.input_norm.assign(c.hidden_size, 0.0f);
    layer.q_proj = zero_linear(c.q_size(), c.hidden_size);
    layer.k_proj = zero_linear(c.kv_size(), c.hidden_size);
    layer.v_proj = zero_linear(c.kv_size(), c.hidden_size);
    layer.o_proj = zero_linear(c.hidden_size, c.q_size());
    layer.post_attn_norm.assign(c.hidden_size, 0.0f);
    if (c.is_moe()) {
      layer.router.assign(c.num_local_experts * c.hidden_size, 0.0f);
      for (int64_t e = 0; e < c.num_local_experts; ++e) layer.experts.push_back(zero_mlp(c));
    } else {
      layer.mlp = zero_mlp(c);
    }
  }
  w.final_norm.assign(c.hidden_size, 0.0f);
  if (!c.tie_word_embeddings) w.lm_head = zero_linear(c.vocab_size, c.hidden_size);
  return w;
}

}  // namespace tidal::models
