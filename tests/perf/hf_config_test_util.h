// Helpers the Hugging Face config reader's suites share: the shared configs folder, inline
// configs, and the one-line error of a config.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "perf/hf_config.h"
#include "tests/scratch_folder.h"

namespace tidal::perf::hf_test {

namespace fs = std::filesystem;
using nlohmann::json;

inline const fs::path& shared_configs() {
  static const fs::path dir = fs::path(TIDAL_SHARED_DIR) / "models" / "hf-configs";
  return dir;
}

#define SKIP_WITHOUT_SHARED_CONFIGS()                                                  \
  if (!fs::is_directory(shared_configs())) {                                           \
    GTEST_SKIP() << "no shared Hugging Face configs at " << shared_configs().string(); \
  }

inline ModelSpec shared(const std::string& stem) {
  return load_hf_config(shared_configs() / (stem + "_config.json"));
}

inline bool is_quant_file(const std::string& name) {
  return name.size() > 21 && name.ends_with("_hf_quant_config.json");
}

inline std::string error_of(const json& config) {
  try {
    parse_hf_config(config, "scenario.json: fleet.pools[0].model");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

inline const std::string kWhere = "scenario.json: fleet.pools[0].model: ";

inline json llama_config() {
  return {{"model_type", "llama"},    {"hidden_size", 4096},
          {"num_hidden_layers", 32},  {"num_attention_heads", 32},
          {"num_key_value_heads", 8}, {"intermediate_size", 14336},
          {"vocab_size", 128256},     {"max_position_embeddings", 8192}};
}

inline json mixtral_config() {
  json c = llama_config();
  c["model_type"] = "mixtral";
  c["num_local_experts"] = 8;
  c["num_experts_per_tok"] = 2;
  c["sliding_window"] = nullptr;
  return c;
}

// A scratch folder tidal_hf_config_test_<pid>_configs, removed afterwards, and files in it.
class TempDir : public ScratchFolder {
 public:
  TempDir() : ScratchFolder("tidal_hf_config_test", "configs") {}
  fs::path write(const std::string& relative, const std::string& text) const {
    const fs::path file = path() / relative;
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
    return file;
  }
};

}  // namespace tidal::perf::hf_test
