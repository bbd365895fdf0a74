#include "models/random_weights.h"

#include <cmath>
#include <random>
#include <string>

namespace tidal::models {

namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

ModelWeights random_weights(const ModelConfig& config, uint64_t seed) {
  ModelWeights weights = empty_weights(config);
  std::mt19937_64 rng(seed);
  // U(-1, 1) from the 53 high bits: specified here, so the same on every standard library.
  const auto symmetric = [&rng] { return static_cast<double>(rng() >> 11) * 0x1.0p-52 - 1.0; };
  visit_tensors(weights, [&](const std::string& name, const std::vector<int64_t>& shape,
                             std::vector<float>& values) {
    if (ends_with(name, "norm.weight")) {
      for (float& v : values) v = static_cast<float>(1.0 + 0.1 * symmetric());
      return;
    }
    // std = 1 for embeddings, 1 / sqrt(fan_in) for linear layers; U(-a, a) has std a / sqrt(3).
    const double std_dev =
        name == "model.embed_tokens.weight" ? 1.0 : 1.0 / std::sqrt(static_cast<double>(shape[1]));
    const double limit = std::sqrt(3.0) * std_dev;
    for (float& v : values) v = static_cast<float>(limit * symmetric());
  });
  return weights;
}

}  // namespace tidal::models
