#include "engine/profile/step_overhead.h"

#include <algorithm>

#include "engine/clock.h"
#include "engine/engine.h"
#include "traces/request.h"

namespace tidal::profile {

std::vector<OverheadSample> measure_step_overhead(const models::ModelWeights& weights,
                                                  const engine::EngineConfig& config,
                                                  const perf::StepTimeModel& operator_model,
                                                  std::span<const int64_t> wave_sizes,
                                                  int64_t prompt_tokens, int64_t output_tokens) {
  engine::EngineConfig plain = config;
  plain.spec = engine::SpecConfig{};
  plain.enable_prefix_caching = false;
  // Every wave runs at once: static batching's deadline would only add idle waits.
  if (plain.scheduler.policy == "static") plain.scheduler.policy = "continuous";
  const int64_t largest_wave = *std::max_element(wave_sizes.begin(), wave_sizes.end());
  plain.scheduler.max_num_seqs =
      std::max<int32_t>(plain.scheduler.max_num_seqs, static_cast<int32_t>(largest_wave));
  engine::Engine engine(weights, plain);
  engine::SteadyClock clock;
  const int64_t vocab = weights.config.vocab_size;

  std::vector<OverheadSample> samples;
  std::vector<perf::SeqWork> work;  // [num seqs of the step]
  int64_t next_id = 0;
  for (int64_t wave : wave_sizes) {
    for (int64_t i = 0; i < wave; ++i) {
      Request request;
      request.id = next_id++;
      request.prompt_tokens = prompt_tokens;
      request.output_tokens = output_tokens;
      std::vector<int32_t> prompt(static_cast<size_t>(prompt_tokens));  // [prompt_tokens]
      for (int64_t t = 0; t < prompt_tokens; ++t) {
        prompt[static_cast<size_t>(t)] = static_cast<int32_t>((request.id * 131 + t * 17) % vocab);
      }
      engine.add_request(request, std::move(prompt), clock.now_ns());
    }
    engine::StepRecord record;
    while (engine.has_unfinished()) {
      if (!engine.step(clock, record)) continue;
      work.clear();
      for (const sched::ScheduledSeq& seq : record.seqs) {
        work.push_back({seq.num_new_tokens, seq.num_context_tokens, seq.samples ? 1 : 0});
      }
      const double measured = static_cast<double>(record.end_ns - record.start_ns) * 1e-9;
      samples.push_back(
          {static_cast<int64_t>(record.seqs.size()), measured - operator_model.step_seconds(work)});
    }
  }
  return samples;
}

}  // namespace tidal::profile
