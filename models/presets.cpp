#include "models/presets.h"

#include <filesystem>

#include "base/input_error.h"

namespace tidal::models {

namespace {

ModelConfig dense(int64_t vocab, int64_t hidden, int64_t intermediate, int64_t layers,
                  int64_t heads, int64_t kv_heads, int64_t head_dim) {
  ModelConfig c;
  c.vocab_size = vocab;
  c.hidden_size = hidden;
  c.intermediate_size = intermediate;
  c.num_layers = layers;
  c.num_heads = heads;
  c.num_kv_heads = kv_heads;
  c.head_dim = head_dim;
  c.rms_eps = 1e-5;
  c.rope_theta = 10000.0;
  c.max_position_embeddings = 2048;
  return c;
}

}  // namespace

std::vector<std::string> preset_names() {
  return {"tiny", "tiny-llama3", "tiny-moe", "small-100m"};
}

std::optional<ModelConfig> find_preset(const std::string& name) {
  if (name == "tiny") return dense(512, 64, 128, 2, 4, 2, 16);
  if (name == "tiny-llama3") {
    ModelConfig c = dense(512, 64, 192, 3, 8, 2, 8);
    c.rope_theta = 500000.0;
    c.rope_scaling = kernels::Llama3RopeScaling{8.0, 1.0, 4.0, 256};
    c.tie_word_embeddings = true;
    return c;
  }
  if (name == "tiny-moe") {
    ModelConfig c = dense(512, 64, 128, 2, 4, 2, 16);
    c.num_local_experts = 4;
    c.num_experts_per_tok = 2;
    return c;
  }
  if (name == "small-100m") {  // 100.1M parameters with tied embeddings
    ModelConfig c = dense(32000, 768, 2048, 12, 12, 4, 64);
    c.tie_word_embeddings = true;
    c.max_position_embeddings = 4096;
    return c;
  }
  return std::nullopt;
}

ModelConfig resolve_config(const std::string& name_or_path, const std::string& what) {
  if (std::optional<ModelConfig> preset = find_preset(name_or_path)) return *preset;
  const std::filesystem::path path(name_or_path);
  if (std::filesystem::is_directory(path)) return load_config(path / "config.json");
  if (std::filesystem::is_regular_file(path)) return load_config(path);
  std::string names;
  for (const std::string& name : preset_names()) names += (names.empty() ? "" : ", ") + name;
  throw InputError(what + ": '" + name_or_path + "' is neither a preset (" + names +
                   ") nor a config.json file or checkpoint folder");
}

}  // namespace tidal::models
