// Named configs for tests, demos and benchmarks (`tidal model init --config tiny`).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/config.h"

namespace tidal::models {

// tiny, tiny-llama3 (tied embeddings, Llama-3 rope scaling), tiny-moe (4 experts, top-2),
// small-100m (~100M parameters, for benchmarks).
std::vector<std::string> preset_names();
std::optional<ModelConfig> find_preset(const std::string& name);

// A preset name, a config.json path, or a checkpoint folder holding config.json.
// InputError naming `what` (e.g. "--config") when it is none of these.
ModelConfig resolve_config(const std::string& name_or_path, const std::string& what);

}  // namespace tidal::models
