#include "engine/model_loading.h"

#include <filesystem>

#include "models/checkpoint.h"
#include "models/presets.h"
#include "models/random_weights.h"

namespace tidal::engine {

LoadedModel load_model(const std::string& dir_or_config, uint64_t seed, const std::string& what) {
  // A folder is a checkpoint; the loader names whatever is missing or mismatched in it.
  if (std::filesystem::is_directory(dir_or_config)) {
    return {models::load_weights(std::filesystem::path(dir_or_config)),
            "checkpoint " + dir_or_config};
  }
  const models::ModelConfig config = models::resolve_config(dir_or_config, what);
  return {models::random_weights(config, seed),
          "random weights (seed " + std::to_string(seed) + ") for " + dir_or_config};
}

std::optional<LoadedModel> load_draft_model(const SpecConfig& spec, uint64_t seed) {
  if (spec.method != SpecMethod::draft || spec.draft_model.empty()) return std::nullopt;
  return load_model(spec.draft_model, seed + 1, "--spec");
}

}  // namespace tidal::engine
