#include "models/model_init.h"

#include "base/input_error.h"
#include "models/checkpoint.h"
#include "models/memory_footprint.h"
#include "models/quantize_weights.h"
#include "models/random_weights.h"

namespace tidal::models {

TensorDType parse_storage_dtype(const std::string& text, const std::string& what) {
  if (text == "f32") return TensorDType::f32;
  if (text == "bf16") return TensorDType::bf16;
  throw InputError(what + ": unknown storage dtype '" + text + "' (expected f32 or bf16)");
}

void init_checkpoint(const ModelConfig& config, const std::filesystem::path& out_dir, uint64_t seed,
                     TensorDType dtype) {
  save_checkpoint(random_weights(config, seed), out_dir, dtype);
}

nlohmann::json describe_model(const ModelConfig& config) {
  nlohmann::json info;
  info["config"] = config_to_json(config);
  info["num_parameters"] = config.num_parameters();
  info["num_active_parameters"] = config.num_active_parameters();
  info["checkpoint_bytes"] = {{"f32", config.num_parameters() * 4},
                              {"bf16", config.num_parameters() * 2}};
  nlohmann::json weight_bytes = nlohmann::json::object();
  for (const char* name : {"none", "int8", "int8:g32", "int8:g64", "int8:g128", "fp8"}) {
    const QuantSpec spec = parse_quant_spec(name, "quantization");
    try {
      weight_bytes[name] = weight_bytes_for(config, spec);
    } catch (const InputError&) {
      weight_bytes[name] = nullptr;  // the group size does not fit this model
    }
  }
  info["weight_bytes"] = weight_bytes;
  info["kv_bytes_per_token"] = {{"f32", kv_bytes_per_token(config, kernels::KvDType::f32)},
                                {"bf16", kv_bytes_per_token(config, kernels::KvDType::bf16)},
                                {"int8", kv_bytes_per_token(config, kernels::KvDType::int8)}};
  info["kv_scale_bytes_per_token_int8"] = config.num_layers * 2 * config.num_kv_heads * 4;
  return info;
}

}  // namespace tidal::models
