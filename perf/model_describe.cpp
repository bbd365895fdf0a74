#include "perf/model_describe.h"

#include <algorithm>
#include <string>
#include <vector>

#include "perf/memory_plan.h"

namespace tidal::perf {
namespace {

using ojson = nlohmann::ordered_json;

const char* kind_name(LayerAttention kind) {
  switch (kind) {
    case LayerAttention::sliding:
      return "sliding";
    case LayerAttention::linear:
      return "linear";
    case LayerAttention::full:
      break;
  }
  return "full";
}

// Runs of equal attention kinds: [{"layers": "0-3", "kind": "sliding"}, ...].
ojson layer_runs(const ModelSpec& m) {
  ojson runs = ojson::array();
  const auto kind_at = [&](int64_t i) {
    return m.layer_attention.empty() ? LayerAttention::full
                                     : m.layer_attention[static_cast<size_t>(i)];
  };
  int64_t start = 0;
  for (int64_t i = 1; i <= m.num_layers; ++i) {
    if (i < m.num_layers && kind_at(i) == kind_at(start)) continue;
    const std::string span = i - 1 == start ? std::to_string(start)
                                            : std::to_string(start) + "-" + std::to_string(i - 1);
    runs.push_back({{"layers", span}, {"kind", kind_name(kind_at(start))}});
    start = i;
  }
  return runs;
}

ojson attention_json(const ModelSpec& m) {
  ojson j{{"kind", m.is_mla() ? "mla" : "gqa"},
          {"num_heads", m.num_heads},
          {"num_kv_heads", m.num_kv_heads},
          {"head_dim", m.head_dim},
          {"qk_norm", m.qk_norm},
          {"bias", m.attention_bias}};
  if (m.is_mla()) {
    j["mla"] = {{"q_lora_rank", m.mla.q_lora_rank},
                {"kv_lora_rank", m.mla.kv_lora_rank},
                {"qk_nope_head_dim", m.mla.qk_nope_head_dim},
                {"qk_rope_head_dim", m.mla.qk_rope_head_dim},
                {"v_head_dim", m.mla.v_head_dim}};
  }
  if (m.attention_output_gate) j["output_gate"] = true;
  j["num_full_layers"] = m.num_full_layers();
  j["num_sliding_layers"] = m.num_sliding_layers();
  j["sliding_window"] = m.sliding_window > 0 ? ojson(m.sliding_window) : ojson(nullptr);
  if (m.num_linear_layers() > 0) {
    const LinearAttentionDims& l = m.linear;
    j["num_linear_layers"] = m.num_linear_layers();
    j["linear"] = {{"kind", "gated_deltanet"},
                   {"num_key_heads", l.num_key_heads},
                   {"num_value_heads", l.num_value_heads},
                   {"key_head_dim", l.key_head_dim},
                   {"value_head_dim", l.value_head_dim},
                   {"conv_kernel", l.conv_kernel},
                   {"state_dtype", std::string(dtype_name(l.state_dtype))},
                   {"state_bytes_per_seq", recurrent_state_bytes_per_seq_per_gpu(m, Deployment{})}};
  }
  j["per_layer"] = layer_runs(m);
  return j;
}

ojson experts_json(const ModelSpec& m) {
  if (!m.is_moe()) return nullptr;
  return {{"num_routed", m.num_experts},
          {"num_active", m.num_active_experts},
          {"num_shared", m.num_shared_experts},
          {"expert_intermediate", m.moe_intermediate},
          {"shared_expert_intermediate",
           m.num_shared_experts > 0 ? ojson(m.shared_expert_width()) : ojson(nullptr)},
          {"num_moe_layers", m.num_moe_layers()},
          {"num_dense_layers", m.num_dense_layers}};
}

ojson quantization_json(const ModelSpec& m) {
  if (m.quant.method.empty()) return nullptr;
  return {{"method", m.quant.method},
          {"dtype", std::string(dtype_name(m.quant.dtype))},
          {"scale_bytes_per_weight", m.quant.scale_bytes_per_weight},
          {"attention", m.quant.attention},
          {"dense_mlp", m.quant.dense_mlp},
          {"experts", m.quant.experts},
          {"shared_experts", m.quant.shared_experts},
          {"not_converted", m.quant.not_converted}};
}

// Whole-model weight bytes (tp 1) with the quantized parts in each dtype.
ojson weight_bytes_json(const ModelSpec& m) {
  std::vector<DType> dtypes{DType::bf16, DType::fp8, DType::int4, DType::fp4};
  if (!m.quant.method.empty() &&
      std::find(dtypes.begin(), dtypes.end(), m.quant.dtype) == dtypes.end()) {
    dtypes.push_back(m.quant.dtype);
  }
  ojson j = ojson::object();
  for (DType dtype : dtypes) {
    Deployment d;
    d.weight_dtype = dtype;
    j[std::string(dtype_name(dtype))] = weight_bytes_per_gpu(m, d);
  }
  return j;
}

// KV bytes per token at tp 1: per layer, per token of the layers that keep every token, and the
// most a sequence keeps in its sliding layers.
ojson kv_bytes_json(const ModelSpec& m) {
  ojson j = ojson::object();
  for (DType dtype : {DType::bf16, DType::fp8}) {
    Deployment d;
    d.kv_dtype = dtype;
    const double per_layer = kv_bytes_per_token_per_layer_per_gpu(m, d);
    j[std::string(dtype_name(dtype))] = {
        {"per_layer", per_layer},
        {"per_token_full_layers", per_layer * static_cast<double>(m.num_full_layers())},
        {"per_token_all_layers", per_layer * static_cast<double>(m.num_layers)},
        {"sliding_layers_max_per_seq",
         per_layer * static_cast<double>(m.num_sliding_layers() * m.sliding_window)}};
  }
  return j;
}

}  // namespace

nlohmann::ordered_json describe_model(const ModelSpec& m) {
  ojson j;
  j["name"] = m.name;
  j["architecture"] = m.architecture;
  j["source"] = m.source;
  j["num_layers"] = m.num_layers;
  j["hidden"] = m.hidden;
  j["intermediate"] = m.intermediate;
  j["vocab"] = m.vocab;
  j["max_context"] = m.max_position;
  j["tied_embeddings"] = m.tied_embeddings;
  j["attention"] = attention_json(m);
  j["experts"] = experts_json(m);
  j["params"] = {{"total", m.total_params()},
                 {"active", m.active_params()},
                 {"active_without_embedding", m.active_params_without_embedding()}};
  j["quantization"] = quantization_json(m);
  j["weight_bytes"] = weight_bytes_json(m);
  j["kv_bytes_per_token"] = kv_bytes_json(m);
  if (!m.notes.empty()) j["notes"] = m.notes;
  return j;
}

}  // namespace tidal::perf
