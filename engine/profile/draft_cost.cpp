#include "engine/profile/draft_cost.h"

#include <chrono>
#include <vector>

#include "engine/ngram_drafter.h"
#include "engine/profile/piecewise_fit.h"
#include "engine/prompt_tokens.h"
#include "traces/request.h"

namespace tidal::profile {

double time_ngram_propose(const engine::SpecConfig& spec, int32_t num_spec_tokens,
                          int64_t vocab_size, int64_t num_context_tokens, int repeats) {
  Request request;
  request.id = num_context_tokens;
  request.prompt_tokens = num_context_tokens;
  const std::vector<int32_t> tokens =
      engine::synthesize_prompt(request, vocab_size, 0);  // [num_context_tokens]
  const engine::NgramDrafter drafter(spec.ngram_min, spec.ngram_max);
  std::vector<int32_t> proposal;  // [<= num_spec_tokens]
  std::vector<double> seconds;    // [repeats]
  for (int r = 0; r <= repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    drafter.propose(tokens, num_spec_tokens, proposal);
    const auto end = std::chrono::steady_clock::now();
    if (r > 0) seconds.push_back(std::chrono::duration<double>(end - start).count());
  }
  return median(seconds);
}

double ngram_draft_step_ratio(const engine::SpecConfig& spec, int32_t num_spec_tokens,
                              int64_t vocab_size, const perf::StepTimeModel& step_model,
                              std::span<const int64_t> batch_sizes,
                              std::span<const int64_t> contexts, int repeats) {
  std::vector<double> ratios;  // [batch sizes x contexts]
  for (int64_t context : contexts) {
    const double propose_seconds =
        time_ngram_propose(spec, num_spec_tokens, vocab_size, context, repeats);
    for (int64_t b : batch_sizes) {
      const std::vector<perf::SeqWork> batch(
          static_cast<size_t>(b), perf::SeqWork{1 + num_spec_tokens, context, 1 + num_spec_tokens});
      const double step_seconds = step_model.step_seconds(batch);
      if (step_seconds > 0.0) {
        ratios.push_back(static_cast<double>(b) * propose_seconds / step_seconds);
      }
    }
  }
  return ratios.empty() ? 0.0 : median(ratios);
}

}  // namespace tidal::profile
