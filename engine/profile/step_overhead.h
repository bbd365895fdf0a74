// The per-step CPU overhead of the engine: scheduling, input preparation, sampling bookkeeping,
// the forward's own glue and the scheduler's update — everything a step spends outside the
// timed operators. Measured by replaying waves of requests on the real engine and subtracting,
// step by step, the operator time the profile's tables give for that very plan.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "engine/engine_config.h"
#include "models/model_weights.h"
#include "perf/step_time_model.h"

namespace tidal::profile {

struct OverheadSample {
  int64_t num_seqs = 0;
  double seconds = 0.0;           // step duration - operator time predicted for its plan
  double operator_seconds = 0.0;  // that operator time
  bool has_prefill = false;       // the plan carries prompt (or recomputed) tokens
};

// For each wave size s in `wave_sizes`, num_waves times: s requests arrive together and run to
// completion through the engine's trace replay loop (the code path of `tidal engine run`, its
// bookkeeping between steps included) on one engine built from `weights` (copied) and `config`.
// The i-th request of the w-th wave has max(1, output_tokens / 2) + (7i + 3w) mod output_tokens
// output tokens and a prompt of prompt_tokens x (1 + (i + w) mod 4) tokens (at most the model's
// context and the scheduler's max_model_len less its output): neighbours in a batch differ in
// context, and a batch shrinks as its requests finish, as in a trace. The config's batching
// policy applies (a static batch formed at once) and prefix caching as configured — the policy's
// scheduling and the cache's bookkeeping are step overhead; every prompt is distinct, so nothing
// hits — and speculative decoding is off. Every executed step gives one sample.
std::vector<OverheadSample> measure_step_overhead(const models::ModelWeights& weights,
                                                  const engine::EngineConfig& config,
                                                  const perf::StepTimeModel& operator_model,
                                                  std::span<const int64_t> wave_sizes,
                                                  int num_waves, int64_t prompt_tokens,
                                                  int64_t output_tokens);

}  // namespace tidal::profile
