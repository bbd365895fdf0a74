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
  const int64_t vocab = weights.config.vocab_size;

  std::vector<OverheadSample> samples;
  std::vector<perf::SeqWork> work;  // [num seqs of the step]
  int64_t next_id = 0;
  const int64_t max_len =
      std::min<int64_t>(weights.config.max_position_embeddings, plain.scheduler.max_model_len);
  for (int w = 0; w < num_waves; ++w) {
    const int64_t wave_prompt_tokens =
        std::max<int64_t>(1, std::min(prompt_tokens * (1 + w % 4), max_len - output_tokens));
    for (int64_t wave : wave_sizes) {
      for (int64_t i = 0; i < wave; ++i) {
        Request request;
        request.id = next_id++;
        request.prompt_tokens = wave_prompt_tokens;
        request.output_tokens = output_tokens;
        std::vector<int32_t> prompt(static_cast<size_t>(wave_prompt_tokens));  // [prompt_tokens]
        // Distinct prompts: the id's two base-vocab digits lead.
        for (int64_t t = 0; t < wave_prompt_tokens; ++t) {
          const int64_t token = t == 0   ? request.id % vocab
                                : t == 1 ? (request.id / vocab) % vocab
                                         : (request.id * 131 + t * 17) % vocab;
          prompt[static_cast<size_t>(t)] = static_cast<int32_t>(token);
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
        samples.push_back({static_cast<int64_t>(record.seqs.size()),
                           measured - operator_model.step_seconds(work)});
      }
    }
  }
  return samples;
}

}  // namespace tidal::profile
