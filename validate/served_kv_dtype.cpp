#include "validate/served_kv_dtype.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "perf/json_reader.h"
#include "validate/measured_runs.h"

namespace tidal::validate {
namespace {

namespace fs = std::filesystem;

bool is_fp8_name(const nlohmann::json& value) {
  return value.is_string() &&
         (value.get<std::string>() == "FP8" || value.get<std::string>() == "fp8");
}

// quantization_config.kv_cache_scheme {"num_bits": 8, "type": "float"} (compressed-tensors style).
bool is_fp8_scheme(const nlohmann::json& scheme) {
  return scheme.is_object() && scheme.value("num_bits", 0) == 8 &&
         scheme.value("type", std::string()) == "float";
}

bool declares_fp8_kv(const nlohmann::json& quantization) {
  if (!quantization.is_object()) return false;
  if (const auto it = quantization.find("kv_cache_quant_algo"); it != quantization.end()) {
    return is_fp8_name(*it);
  }
  if (const auto it = quantization.find("kv_cache_scheme"); it != quantization.end()) {
    return is_fp8_scheme(*it);
  }
  return false;
}

}  // namespace

std::optional<std::string> served_kv_dtype(const MeasuredRun& run, const std::string& configs_dir) {
  if (run.precision != "fp4" || (run.engine != "vllm" && run.engine != "trtllm")) {
    return std::nullopt;
  }
  const size_t slash = run.model.find('/');
  const std::string name = slash == std::string::npos ? run.model : run.model.substr(slash + 1);
  // The row may name the NVFP4 checkpoint itself ("nvidia/DeepSeek-V3.1-NVFP4").
  const bool is_nvfp4 = name.size() > 6 && name.compare(name.size() - 6, 6, "-NVFP4") == 0;
  const fs::path stem = fs::path(configs_dir) / ("nvidia--" + name + (is_nvfp4 ? "" : "-NVFP4"));
  const fs::path quant_file = stem.string() + "_hf_quant_config.json";
  if (fs::exists(quant_file)) {
    const nlohmann::json file = perf::read_json_file(quant_file.string(), "hf_quant_config");
    return declares_fp8_kv(file.value("quantization", nlohmann::json()))
               ? std::optional<std::string>("fp8")
               : std::nullopt;
  }
  const fs::path config_file = stem.string() + "_config.json";
  if (!fs::exists(config_file)) return std::nullopt;
  const nlohmann::json config = perf::read_json_file(config_file.string(), "model config");
  nlohmann::json quantization = config.value("quantization_config", nlohmann::json());
  if (quantization.is_null() && config.contains("text_config")) {
    quantization = config["text_config"].value("quantization_config", nlohmann::json());
  }
  return declares_fp8_kv(quantization) ? std::optional<std::string>("fp8") : std::nullopt;
}

}  // namespace tidal::validate
