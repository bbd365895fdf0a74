// What `tidal model init` and `tidal model info` do.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "models/config.h"
#include "models/safetensors.h"

namespace tidal::models {

// "f32" -> F32, "bf16" -> BF16; InputError naming `what` otherwise.
TensorDType parse_storage_dtype(const std::string& text, const std::string& what);

// Seeded random weights for config, written to out_dir (created) as config.json +
// model.safetensors.
void init_checkpoint(const ModelConfig& config, const std::filesystem::path& out_dir, uint64_t seed,
                     TensorDType dtype);

// Config plus derived figures: parameters (total, active), weight bytes per storage format,
// KV bytes per token per KV dtype.
nlohmann::json describe_model(const ModelConfig& config);

}  // namespace tidal::models
