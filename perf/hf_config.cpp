// parse_hf_config: picks the architecture reader by model_type (the text model's, for the
// multimodal wrappers that nest it in text_config), reads the checkpoint's quantization, and
// checks the result. Architectures tidal cannot represent are refused with the reason.
#include "perf/hf_config.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "base/input_error.h"
#include "perf/hf_config_arch.h"
#include "perf/hf_config_parse.h"
#include "perf/hf_quant.h"

namespace tidal::perf {
namespace {

struct Architecture {
  const char* model_type;
  void (*read)(HfRead&);
  // For wrappers whose text model sits in text_config: the text model_types accepted there.
  std::vector<std::string> text_model_types;
};

const std::vector<Architecture>& architectures() {
  static const std::vector<Architecture> table = {
      {"llama", read_llama, {}},
      {"mistral", read_mistral, {}},
      {"qwen2", read_qwen2, {}},
      {"mimo", read_qwen2, {}},  // Qwen2 layers plus MTP layers
      {"qwen3", read_qwen3, {}},
      {"qwen", read_qwen1, {}},
      {"internlm", read_internlm, {}},
      {"phi", read_phi, {}},
      {"gemma", read_gemma, {}},
      {"gemma2", read_gemma2, {}},
      {"gemma3_text", read_gemma3, {}},
      {"gemma3", read_gemma3, {"gemma3_text"}},
      {"mixtral", read_mixtral, {}},
      {"qwen3_moe", read_qwen3_moe, {}},
      {"qwen3_vl", read_qwen3, {"qwen3_vl_text"}},
      {"qwen3_vl_moe", read_qwen3_moe, {"qwen3_vl_moe_text"}},
      {"gpt_oss", read_gpt_oss, {}},
      {"llama4_text", read_llama4, {}},
      {"llama4", read_llama4, {"llama4_text"}},
      {"minimax_m2", read_minimax_m2, {}},
      {"deepseek_v3", read_deepseek, {}},
      {"deepseek_v32", read_deepseek, {}},
      {"kimi_k2", read_deepseek, {}},
      {"glm_moe_dsa", read_deepseek, {}},
      {"kimi_k25", read_deepseek, {"kimi_k2", "deepseek_v3"}},
      {"qwen3_next", read_qwen3_5_moe, {}},
      {"qwen3_5_text", read_qwen3_5, {}},
      {"qwen3_5", read_qwen3_5, {"qwen3_5_text"}},
      {"qwen3_5_moe_text", read_qwen3_5_moe, {}},
      {"qwen3_5_moe", read_qwen3_5_moe, {"qwen3_5_moe_text"}},
  };
  return table;
}

// Architectures seen in published configs that ModelSpec cannot describe, and why.
struct Refusal {
  std::vector<const char*> model_types;
  const char* reason;
};

const std::vector<Refusal>& refusals() {
  static const std::vector<Refusal> table = {
      {{"gemma4", "gemma4_text"},
       "full-attention and sliding layers differ in head_dim (global_head_dim) and KV heads "
       "(num_global_key_value_heads), keys can double as values (attention_k_eq_v), and layers "
       "may share KV caches (num_kv_shared_layers) or take per-layer inputs "
       "(hidden_size_per_layer_input): ModelSpec has one head_dim and one KV-head count, and a "
       "KV cache in every layer"},
      {{"kimi_k3", "kimi_linear"},
       "its Kimi Delta Attention layers (linear_attn_config) and MLA full-attention layers: tidal "
       "models Gated DeltaNet linear attention beside GQA attention only (Qwen3-Next, Qwen3.5)"},
      {{"nemotron_h"},
       "its Mamba-2 layers (hybrid_override_pattern) keep a state-space state of their own "
       "shape: tidal models Gated DeltaNet linear attention only (Qwen3-Next, Qwen3.5)"},
      {{"nemotron-nas", "deci"},
       "each layer has its own block_configs (FFN width, KV-head grouping, no-op attention); "
       "ModelSpec has one width and one KV-head count for all layers"},
      {{"deepseek_v4", "deepseek_ref"},
       "compressed attention (compress_ratios per layer), hyper-connections (hc_mult) and "
       "grouped low-rank output projections (o_lora_rank): its KV per token differs by layer and "
       "is not an MLA latent"},
      {{"mimo_v2_flash"},
       "sliding and full layers differ in heads, KV heads and head dims (swa_num_key_value_heads, "
       "swa_head_dim) and values are narrower than keys (v_head_dim): ModelSpec has one "
       "attention shape for all layers"},
      {{"minimax_m3", "minimax_m3_vl"},
       "block-sparse attention with its own index keys (sparse_attention_config) and no modeling "
       "code in Hugging Face transformers to check its keys against"},
      {{"step3p7"},
       "its modeling code is not part of Hugging Face transformers, so keys such as "
       "share_expert_dim and moe_router_scaling_factor cannot be checked against a config class"},
  };
  return table;
}

std::string understood_list() {
  std::string list;
  for (const std::string& type : supported_model_types()) list += (list.empty() ? "" : ", ") + type;
  return list;
}

[[noreturn]] void refuse(const HfKeys& root, const std::string& type) {
  for (const Refusal& refusal : refusals()) {
    for (const char* refused : refusal.model_types) {
      if (type == refused) {
        root.fail("model_type", fmt::format("unsupported model type \"{}\": {} (tidal "
                                            "understands: {})",
                                            type, refusal.reason, understood_list()));
      }
    }
  }
  root.fail("model_type", fmt::format("unsupported model type \"{}\" (tidal understands: {})", type,
                                      understood_list()));
}

std::string joined(const std::vector<std::string>& notes) {
  std::string text;
  for (const std::string& note : notes) text += (text.empty() ? "" : "; ") + note;
  return text;
}

}  // namespace

std::vector<std::string> supported_model_types() {
  std::vector<std::string> types;
  for (const Architecture& a : architectures()) types.emplace_back(a.model_type);
  std::sort(types.begin(), types.end());
  return types;
}

ModelSpec parse_hf_config_with_quant(const nlohmann::json& config, const std::string& where,
                                     const nlohmann::json* hf_quant_config,
                                     const std::string& hf_quant_where) {
  const HfKeys root(config, where);
  if (root.find("model_type") == nullptr) {
    root.fail("model_type", fmt::format("absent (tidal understands: {})", understood_list()));
  }
  const std::string type = root.text("model_type");
  const auto& table = architectures();
  const auto arch = std::find_if(table.begin(), table.end(),
                                 [&](const Architecture& a) { return type == a.model_type; });
  if (arch == table.end()) refuse(root, type);

  HfRead r{root, root, false, type, {}, {}, {}};
  if (!arch->text_model_types.empty()) {
    r.keys = root.child("text_config");
    r.nested = true;
    if (r.keys.has("model_type")) {
      const std::string text_type = r.keys.text("model_type");
      const auto& accepted = arch->text_model_types;
      if (std::find(accepted.begin(), accepted.end(), text_type) == accepted.end()) {
        r.keys.fail("model_type", fmt::format("\"{}\" inside a {} config (expected {})", text_type,
                                              type, accepted.front()));
      }
    }
  }
  r.model.architecture = type;
  arch->read(r);

  const char* qc_key = "quantization_config";
  std::optional<HfKeys> qc;
  if (root.has(qc_key)) {
    qc = root.child(qc_key);
  } else if (r.nested && r.keys.has(qc_key)) {
    qc = r.keys.child(qc_key);
  }
  const QuantReading quant = read_checkpoint_quant(
      qc ? &*qc : nullptr, hf_quant_config, hf_quant_where, {r.model.num_layers, r.moe_layer});
  r.model.quant = quant.quant;
  r.notes.insert(r.notes.end(), quant.notes.begin(), quant.notes.end());
  r.model.notes = joined(r.notes);
  check_model_spec(r.model, where);
  return r.model;
}

ModelSpec parse_hf_config(const nlohmann::json& config, const std::string& where,
                          const nlohmann::json* hf_quant_config) {
  return parse_hf_config_with_quant(config, where, hf_quant_config,
                                    where + ": hf_quant_config.json");
}

}  // namespace tidal::perf
