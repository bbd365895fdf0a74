// The measurement grids both profilers (profiler.h: CPU, cuda_target.h: CUDA) sweep, and the
// operator classes the per-token sweep fills.
#pragma once

#include <cstdint>
#include <vector>

#include "models/config.h"
#include "perf/step_time_model.h"

namespace tidal::profile {

// 1, 2, 3, 4, 6, 8, 12, 16, ... up to `limit` (inclusive when it is such a number).
std::vector<int64_t> token_grid(int64_t limit);

// 1, 2, 4, 8, ... up to `limit`.
std::vector<int64_t> powers_of_two(int64_t limit);

// {first, 4 * first, 16 * first, ...} up to `limit`.
std::vector<int64_t> context_grid(int64_t first, int64_t limit);

// Operator classes a model's forward runs per token (residual adds are fused into the norms
// by the forward pass and measure 0).
std::vector<perf::OpClass> token_classes(const models::ModelConfig& config);

}  // namespace tidal::profile
