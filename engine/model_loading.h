// Where the engine's weights come from: a Hugging Face checkpoint folder is loaded (missing or
// mismatched tensors are InputErrors naming tensor and file); a preset name or a config.json
// gets seeded random weights (models::random_weights), so any config runs without a checkpoint.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/engine_config.h"
#include "models/model_weights.h"

namespace tidal::engine {

struct LoadedModel {
  models::ModelWeights weights;  // unsharded fp32
  std::string source;            // "checkpoint DIR" or "random weights (seed S) for CONFIG"
};

// `what` names the option in errors (e.g. "--model").
LoadedModel load_model(const std::string& dir_or_config, uint64_t seed, const std::string& what);

// The draft model's weights for spec draft:MODEL:k (seeded like the target, seed + 1);
// nullopt for every other spec.
std::optional<LoadedModel> load_draft_model(const SpecConfig& spec, uint64_t seed);

}  // namespace tidal::engine
