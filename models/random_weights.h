// Seeded random weights for any config: same config + seed = the same bytes everywhere
// (std::mt19937_64 with our own uniform). Linear weights ~ U(-a, a) with std 1/sqrt(fan_in),
// embeddings with std 1, norm weights 1 + U(-0.1, 0.1), so tests never see zeros.
#pragma once

#include <cstdint>

#include "models/model_weights.h"

namespace tidal::models {

ModelWeights random_weights(const ModelConfig& config, uint64_t seed);

}  // namespace tidal::models
