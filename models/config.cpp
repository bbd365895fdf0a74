#include "models/config.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "base/input_error.h"

namespace tidal::models {

namespace {

[[noreturn]] void fail(const std::string& source, const std::string& key, const std::string& what) {
  throw InputError(source + ": " + key + ": " + what);
}

std::string shown(const nlohmann::json& value) {
  return value.dump();
}

const nlohmann::json* find_key(const nlohmann::json& object, const std::string& key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

int64_t positive_int(const nlohmann::json& value, const std::string& source,
                     const std::string& key) {
  if (!value.is_number_integer() || value.get<int64_t>() <= 0) {
    fail(source, key, "must be a positive integer (got " + shown(value) + ")");
  }
  return value.get<int64_t>();
}

double positive_number(const nlohmann::json& value, const std::string& source,
                       const std::string& key) {
  if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() <= 0.0) {
    fail(source, key, "must be a positive number (got " + shown(value) + ")");
  }
  return value.get<double>();
}

const nlohmann::json& required(const nlohmann::json& object, const std::string& key,
                               const std::string& source, const std::string& path) {
  const nlohmann::json* value = find_key(object, key);
  if (value == nullptr) fail(source, path, "required key is missing");
  return *value;
}

int64_t required_int(const nlohmann::json& json, const std::string& key,
                     const std::string& source) {
  return positive_int(required(json, key, source, key), source, key);
}

kernels::Llama3RopeScaling parse_rope_scaling(const nlohmann::json& value,
                                              const std::string& source) {
  if (!value.is_object()) fail(source, "rope_scaling", "must be an object or null");
  const nlohmann::json* type = find_key(value, "rope_type");
  if (type == nullptr) type = find_key(value, "type");
  if (type == nullptr) fail(source, "rope_scaling.rope_type", "required key is missing");
  if (*type != "llama3") {
    fail(source, "rope_scaling.rope_type",
         "unsupported rope scaling " + shown(*type) + " (supported: \"llama3\")");
  }
  kernels::Llama3RopeScaling scaling;
  const auto number = [&](const std::string& key) {
    const std::string path = "rope_scaling." + key;
    return positive_number(required(value, key, source, path), source, path);
  };
  scaling.factor = number("factor");
  scaling.low_freq_factor = number("low_freq_factor");
  scaling.high_freq_factor = number("high_freq_factor");
  scaling.original_max_position_embeddings =
      positive_int(required(value, "original_max_position_embeddings", source,
                            "rope_scaling.original_max_position_embeddings"),
                   source, "rope_scaling.original_max_position_embeddings");
  if (!(scaling.low_freq_factor < scaling.high_freq_factor)) {
    fail(source, "rope_scaling.high_freq_factor", "must be larger than low_freq_factor");
  }
  return scaling;
}

// Features some Llama-like configs switch on that this implementation does not have.
void reject_unsupported(const nlohmann::json& json, const std::string& source) {
  if (const nlohmann::json* act = find_key(json, "hidden_act"); act && *act != "silu") {
    fail(source, "hidden_act", "unsupported activation " + shown(*act) + " (supported: \"silu\")");
  }
  for (const char* key : {"attention_bias", "mlp_bias"}) {
    if (const nlohmann::json* flag = find_key(json, key); flag && *flag != false) {
      fail(source, key, "biases are not supported (got " + shown(*flag) + ")");
    }
  }
  if (const nlohmann::json* window = find_key(json, "sliding_window");
      window && !window->is_null()) {
    fail(source, "sliding_window",
         "sliding-window attention is not supported (got " + shown(*window) + ")");
  }
}

}  // namespace

int64_t ModelConfig::num_parameters() const {
  const int64_t attention = hidden_size * q_size() * 2 + hidden_size * kv_size() * 2;
  const int64_t mlp = 3 * hidden_size * intermediate_size;
  const int64_t per_layer =
      2 * hidden_size + attention + (is_moe() ? num_local_experts * (mlp + hidden_size) : mlp);
  return vocab_size * hidden_size * (tie_word_embeddings ? 1 : 2) + hidden_size +
         num_layers * per_layer;
}

int64_t ModelConfig::num_active_parameters() const {
  if (!is_moe()) return num_parameters();
  const int64_t mlp = 3 * hidden_size * intermediate_size;
  return num_parameters() - num_layers * (num_local_experts - num_experts_per_tok) * mlp;
}

ModelConfig parse_config(const nlohmann::json& json, const std::string& source) {
  if (!json.is_object()) throw InputError(source + ": must hold a JSON object");
  const nlohmann::json& model_type = required(json, "model_type", source, "model_type");
  // Mistral's architecture is Llama's (plus an optional sliding window, refused below).
  if (model_type != "llama" && model_type != "mistral" && model_type != "mixtral") {
    fail(source, "model_type",
         "the engine's forward pass does not run model type " + shown(model_type) +
             " (it runs \"llama\", \"mistral\" and \"mixtral\" without sliding windows or "
             "biases); the simulator may still understand it: see `tidal model info`");
  }
  reject_unsupported(json, source);

  ModelConfig config;
  config.vocab_size = required_int(json, "vocab_size", source);
  config.hidden_size = required_int(json, "hidden_size", source);
  config.intermediate_size = required_int(json, "intermediate_size", source);
  config.num_layers = required_int(json, "num_hidden_layers", source);
  config.num_heads = required_int(json, "num_attention_heads", source);
  config.max_position_embeddings = required_int(json, "max_position_embeddings", source);
  config.rms_eps = positive_number(required(json, "rms_norm_eps", source, "rms_norm_eps"), source,
                                   "rms_norm_eps");
  // Keys Hugging Face itself defaults (documented in docs/models.md).
  const nlohmann::json* kv_heads = find_key(json, "num_key_value_heads");
  config.num_kv_heads = kv_heads && !kv_heads->is_null()
                            ? positive_int(*kv_heads, source, "num_key_value_heads")
                            : config.num_heads;
  const nlohmann::json* head_dim = find_key(json, "head_dim");
  if (head_dim && !head_dim->is_null()) {
    config.head_dim = positive_int(*head_dim, source, "head_dim");
  } else {
    if (config.hidden_size % config.num_heads != 0) {
      fail(source, "head_dim",
           "missing, and hidden_size (" + std::to_string(config.hidden_size) +
               ") is not a multiple of num_attention_heads (" + std::to_string(config.num_heads) +
               ")");
    }
    config.head_dim = config.hidden_size / config.num_heads;
  }
  if (const nlohmann::json* theta = find_key(json, "rope_theta")) {
    config.rope_theta = positive_number(*theta, source, "rope_theta");
  }
  if (const nlohmann::json* scaling = find_key(json, "rope_scaling");
      scaling && !scaling->is_null()) {
    config.rope_scaling = parse_rope_scaling(*scaling, source);
  }
  if (const nlohmann::json* tie = find_key(json, "tie_word_embeddings")) {
    if (!tie->is_boolean()) fail(source, "tie_word_embeddings", "must be true or false");
    config.tie_word_embeddings = tie->get<bool>();
  }
  if (model_type == "mixtral") {
    config.num_local_experts = required_int(json, "num_local_experts", source);
    config.num_experts_per_tok = required_int(json, "num_experts_per_tok", source);
  }
  validate_config(config, source);
  return config;
}

void validate_config(const ModelConfig& c, const std::string& source) {
  for (const auto& [key, value] : {std::pair<const char*, int64_t>{"vocab_size", c.vocab_size},
                                   {"hidden_size", c.hidden_size},
                                   {"intermediate_size", c.intermediate_size},
                                   {"num_hidden_layers", c.num_layers},
                                   {"num_attention_heads", c.num_heads},
                                   {"num_key_value_heads", c.num_kv_heads},
                                   {"head_dim", c.head_dim},
                                   {"max_position_embeddings", c.max_position_embeddings}}) {
    if (value <= 0)
      fail(source, key, "must be a positive integer (got " + std::to_string(value) + ")");
  }
  if (c.num_heads % c.num_kv_heads != 0) {
    fail(source, "num_key_value_heads",
         "must divide num_attention_heads (" + std::to_string(c.num_heads) + "), got " +
             std::to_string(c.num_kv_heads));
  }
  if (c.head_dim % 2 != 0) {
    fail(source, "head_dim",
         "must be even for rotary embeddings (got " + std::to_string(c.head_dim) + ")");
  }
  if (!(c.rms_eps > 0.0) || !(c.rope_theta > 0.0)) {
    fail(source, c.rms_eps > 0.0 ? "rope_theta" : "rms_norm_eps", "must be a positive number");
  }
  if (c.num_local_experts < 0 || (c.num_local_experts == 0) != (c.num_experts_per_tok == 0)) {
    fail(source, "num_experts_per_tok", "needs num_local_experts (MoE) and vice versa");
  }
  if (c.num_experts_per_tok > c.num_local_experts) {
    fail(source, "num_experts_per_tok",
         "must not exceed num_local_experts (" + std::to_string(c.num_local_experts) + "), got " +
             std::to_string(c.num_experts_per_tok));
  }
}

ModelConfig load_config(const std::filesystem::path& config_json) {
  const std::string source = config_json.string();
  std::ifstream in(config_json);
  if (!in) throw InputError(source + ": cannot open model config");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(source + ": invalid JSON: " + e.what());
  }
  return parse_config(json, source);
}

nlohmann::json config_to_json(const ModelConfig& c) {
  nlohmann::json json;
  json["architectures"] = {c.is_moe() ? "MixtralForCausalLM" : "LlamaForCausalLM"};
  json["model_type"] = c.is_moe() ? "mixtral" : "llama";
  json["vocab_size"] = c.vocab_size;
  json["hidden_size"] = c.hidden_size;
  json["intermediate_size"] = c.intermediate_size;
  json["num_hidden_layers"] = c.num_layers;
  json["num_attention_heads"] = c.num_heads;
  json["num_key_value_heads"] = c.num_kv_heads;
  json["head_dim"] = c.head_dim;
  json["hidden_act"] = "silu";
  json["rms_norm_eps"] = c.rms_eps;
  json["rope_theta"] = c.rope_theta;
  if (c.rope_scaling) {
    json["rope_scaling"] = {
        {"rope_type", "llama3"},
        {"factor", c.rope_scaling->factor},
        {"low_freq_factor", c.rope_scaling->low_freq_factor},
        {"high_freq_factor", c.rope_scaling->high_freq_factor},
        {"original_max_position_embeddings", c.rope_scaling->original_max_position_embeddings}};
  } else {
    json["rope_scaling"] = nullptr;
  }
  json["tie_word_embeddings"] = c.tie_word_embeddings;
  json["max_position_embeddings"] = c.max_position_embeddings;
  if (c.is_moe()) {
    json["num_local_experts"] = c.num_local_experts;
    json["num_experts_per_tok"] = c.num_experts_per_tok;
  }
  return json;
}

}  // namespace tidal::models
