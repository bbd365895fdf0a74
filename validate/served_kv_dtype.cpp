#include "validate/served_kv_dtype.h"

#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "perf/json_reader.h"
#include "validate/measured_runs.h"

namespace tidal::validate {
namespace {

// config.json's quantization_config.quant_method, or its text_config's (multimodal wrappers).
std::string quant_method(const nlohmann::json& config) {
  nlohmann::json quantization = config.value("quantization_config", nlohmann::json());
  if (quantization.is_null() && config.contains("text_config")) {
    quantization = config["text_config"].value("quantization_config", nlohmann::json());
  }
  if (!quantization.is_object()) return "";
  const auto it = quantization.find("quant_method");
  return it != quantization.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

std::optional<std::string> served_kv_dtype(const MeasuredRun& run,
                                           const std::string& model_config) {
  if (run.precision == "fp8") return "fp8";
  if (run.precision != "fp4") return std::nullopt;
  const nlohmann::json config = perf::read_json_file(model_config, "model config");
  if (!config.is_object()) throw InputError(model_config + ": a model config is a JSON object");
  if (quant_method(config) == "mxfp4") return std::nullopt;
  return "fp8";
}

}  // namespace tidal::validate
