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

NgramProposeCost fit_ngram_propose(const engine::SpecConfig& spec, int32_t num_spec_tokens,
                                   int64_t vocab_size, std::span<const int64_t> contexts,
                                   int repeats) {
  std::vector<double> xs;  // [num_contexts] context tokens
  std::vector<double> ys;  // [num_contexts] seconds
  for (int64_t context : contexts) {
    xs.push_back(static_cast<double>(context));
    ys.push_back(time_ngram_propose(spec, num_spec_tokens, vocab_size, context, repeats));
  }
  const NonNegativeLine line = fit_nonnegative_line(xs, ys);
  return {line.intercept, line.slope};
}

}  // namespace tidal::profile
