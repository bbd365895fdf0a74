#include "engine/profile/step_overhead.h"

#include <algorithm>

#include "engine/clock.h"
#include "engine/engine.h"
#include "engine/trace_replay.h"
#include "traces/request.h"

namespace tidal::profile {

std::vector<OverheadSample> measure_step_overhead(const models::ModelWeights& weights,
                                                  const engine::EngineConfig& config,
                                                  const perf::StepTimeModel& operator_model,
                                                  std::span<const int64_t> wave_sizes,
                                                  int num_waves, int64_t prompt_tokens,
                                                  int64_t output_tokens) {
  engine::EngineConfig plain = config;
  plain.spec = engine::SpecConfig{};
  // Static batching forms each wave's batch at once: its deadline would only add idle waits.
  plain.scheduler.static_batch_timeout_s = 0.0;
  const int64_t largest_wave = *std::max_element(wave_sizes.begin(), wave_sizes.end());
  plain.scheduler.max_num_seqs =
      std::max<int32_t>(plain.scheduler.max_num_seqs, static_cast<int32_t>(largest_wave));
  engine::Engine engine(weights, plain);
  engine::SteadyClock clock;
  engine::ReplayOptions replay_options;
  replay_options.time_scale = 0.0;

  std::vector<OverheadSample> samples;
  std::vector<perf::SeqWork> work;  // [num seqs of the step]
  int64_t next_id = 0;
  const int64_t max_len =
      std::min<int64_t>(weights.config.max_position_embeddings, plain.scheduler.max_model_len);
  const int64_t min_output_tokens = std::max<int64_t>(1, output_tokens / 2);
  for (int w = 0; w < num_waves; ++w) {
    for (int64_t wave : wave_sizes) {
      std::vector<Request> requests;  // [wave]
      for (int64_t i = 0; i < wave; ++i) {
        Request request;
        request.id = next_id++;
        // Neighbours differ in prompt and output length, as requests met in a trace do.
        request.output_tokens = min_output_tokens + (i * 7 + w * 3) % output_tokens;
        request.prompt_tokens = std::max<int64_t>(
            1, std::min(prompt_tokens * (1 + (i + w) % 4), max_len - request.output_tokens));
        requests.push_back(request);
      }
      // Distinct prompts: each request's id seeds its private tokens.
      const engine::EngineRun run =
          engine::replay(engine, std::move(requests), replay_options, clock);
      for (const engine::StepRecord& record : run.steps) {
        work.clear();
        for (const sched::ScheduledSeq& seq : record.seqs) {
          work.push_back({seq.num_new_tokens, seq.num_context_tokens, seq.samples ? 1 : 0});
        }
        const double measured = static_cast<double>(record.end_ns - record.start_ns) * 1e-9;
        const double operator_seconds = operator_model.step_seconds(work);
        samples.push_back({static_cast<int64_t>(record.seqs.size()), measured - operator_seconds,
                           operator_seconds, record.num_prefill_tokens > 0});
      }
    }
  }
  return samples;
}

}  // namespace tidal::profile
