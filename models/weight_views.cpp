#include "models/weight_views.h"

namespace tidal::models {

namespace {

kernels::LinearView f32_view(const float* data, int64_t rows, int64_t cols) {
  kernels::LinearView view;
  view.rows = rows;
  view.cols = cols;
  view.group_size = cols;
  view.data = data;
  return view;
}

ExpertViews expert_views(const ExpertWeights& expert) {
  return {expert.gate.view(), expert.up.view(), expert.down.view()};
}

}  // namespace

ModelWeightViews host_views(const ModelWeights& weights) {
  const ModelConfig& c = weights.config;
  ModelWeightViews views;
  views.config = c;
  views.shard = weights.shard;
  views.embed_tokens = weights.embed_tokens.data();
  views.final_norm = weights.final_norm.data();
  views.lm_head = weights.lm_head_view();
  for (const LayerWeights& layer : weights.layers) {
    LayerViews& l = views.layers.emplace_back();
    l.input_norm = layer.input_norm.data();
    l.q_proj = layer.q_proj.view();
    l.k_proj = layer.k_proj.view();
    l.v_proj = layer.v_proj.view();
    l.o_proj = layer.o_proj.view();
    l.post_attn_norm = layer.post_attn_norm.data();
    if (c.is_moe()) {
      l.router = f32_view(layer.router.data(), c.num_local_experts, c.hidden_size);
      for (const ExpertWeights& expert : layer.experts) l.experts.push_back(expert_views(expert));
    } else {
      l.mlp = expert_views(layer.mlp);
    }
  }
  return views;
}

DeviceWeights::DeviceWeights(const ModelWeights& weights, kernels::BackendMemory& memory) {
  views_ = host_views(weights);
  // Each host pointer of the views becomes a pointer to its copy.
  auto upload = [&](const void* host, size_t bytes) -> const void* {
    if (host == nullptr || bytes == 0) return host;
    kernels::BackendBuffer& buffer = buffers_.emplace_back(memory, bytes);
    memory.copy_from_host(buffer.data(), host, bytes);
    bytes_ += bytes;
    return buffer.data();
  };
  auto floats = [&](const float* host, size_t count) {
    return static_cast<const float*>(upload(host, count * sizeof(float)));
  };
  auto linear = [&](kernels::LinearView& view) {
    const size_t element_bytes = kernels::weight_element_bytes(view.format);
    view.data = upload(view.data, static_cast<size_t>(view.rows * view.cols) * element_bytes);
    if (view.scales != nullptr) {
      view.scales = floats(view.scales, static_cast<size_t>(view.rows * view.num_groups()));
    }
  };
  auto expert = [&](ExpertViews& e) {
    linear(e.gate);
    linear(e.up);
    linear(e.down);
  };
  const ModelConfig& c = weights.config;
  const auto hidden = static_cast<size_t>(c.hidden_size);
  const float* host_embed = views_.embed_tokens;
  views_.embed_tokens = floats(host_embed, static_cast<size_t>(c.vocab_size) * hidden);
  views_.final_norm = floats(views_.final_norm, hidden);
  if (views_.lm_head.data == host_embed) {
    views_.lm_head.data = views_.embed_tokens;  // tied and unquantized: one copy
  } else {
    linear(views_.lm_head);
  }
  for (LayerViews& l : views_.layers) {
    l.input_norm = floats(l.input_norm, hidden);
    l.post_attn_norm = floats(l.post_attn_norm, hidden);
    linear(l.q_proj);
    linear(l.k_proj);
    linear(l.v_proj);
    linear(l.o_proj);
    if (c.is_moe()) {
      linear(l.router);
      for (ExpertViews& e : l.experts) expert(e);
    } else {
      expert(l.mlp);
    }
  }
  memory.synchronize();  // the host weights may change or go once this returns
}

}  // namespace tidal::models
