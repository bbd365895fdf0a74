// Llama-family model configuration (dense Llama 2/3, Mixtral-style MoE), read from and written
// to Hugging Face config.json. Parsing is strict: unknown HF keys are ignored, but a missing
// required key, a wrong type, a bad value or an unsupported feature is an InputError naming
// the file and the key. Defaults (only where HF itself defines one) are listed in docs/models.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "kernels/rope_frequencies.h"

namespace tidal::models {

struct ModelConfig {
  int64_t vocab_size = 0;
  int64_t hidden_size = 0;
  int64_t intermediate_size = 0;  // per expert for MoE
  int64_t num_layers = 0;
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;
  int64_t head_dim = 0;
  double rms_eps = 1e-5;
  double rope_theta = 10000.0;
  std::optional<kernels::Llama3RopeScaling> rope_scaling;
  bool tie_word_embeddings = false;
  int64_t max_position_embeddings = 0;
  int64_t num_local_experts = 0;    // 0 = dense MLP
  int64_t num_experts_per_tok = 0;  // top-k of the router; 0 when dense

  bool is_moe() const { return num_local_experts > 0; }
  int64_t q_size() const { return num_heads * head_dim; }
  int64_t kv_size() const { return num_kv_heads * head_dim; }
  int64_t num_parameters() const;         // every stored weight (all experts)
  int64_t num_active_parameters() const;  // per token: experts_per_tok experts only

  bool operator==(const ModelConfig&) const = default;
};

// `source` names the file in error messages ("path/config.json: num_key_value_heads: ...").
ModelConfig parse_config(const nlohmann::json& json, const std::string& source);
ModelConfig load_config(const std::filesystem::path& config_json);
// HF-style config.json contents (model_type llama or mixtral); parse_config(to_json(c)) == c.
nlohmann::json config_to_json(const ModelConfig& config);
// Checks cross-field rules (heads divide, head_dim even, top-k <= experts, ...).
void validate_config(const ModelConfig& config, const std::string& source);

}  // namespace tidal::models
