// The per-step CPU overhead of the engine: scheduling, input preparation, sampling bookkeeping,
// the forward's own glue and the scheduler's update — everything a step spends outside the
// timed operators. Measured by running the real engine on waves of requests and subtracting,
// step by step, the operator time the profile's tables give for that very plan.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "engine/engine_config.h"
#include "models/model_weights.h"
#include "sim/perf/step_time_model.h"

namespace tidal::profile {

struct OverheadSample {
  int64_t num_seqs = 0;
  double seconds = 0.0;  // step duration - operator time predicted for its plan
};

// For each wave size s in `wave_sizes`: s requests of prompt_tokens / output_tokens tokens
// arrive together and run to completion on an engine built from `weights` (copied) and
// `config` (speculative decoding and prefix caching off, static batching run as continuous).
// Every executed step gives one sample.
std::vector<OverheadSample> measure_step_overhead(const models::ModelWeights& weights,
                                                  const engine::EngineConfig& config,
                                                  const perf::StepTimeModel& operator_model,
                                                  std::span<const int64_t> wave_sizes,
                                                  int64_t prompt_tokens, int64_t output_tokens);

}  // namespace tidal::profile
