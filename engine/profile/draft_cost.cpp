#include "engine/profile/draft_cost.h"

#include <algorithm>
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
  if (xs.empty()) return {};
  const auto n = static_cast<double>(xs.size());
  double mean_x = 0.0, mean_y = 0.0;
  for (size_t i = 0; i < xs.size(); ++i) {
    mean_x += xs[i] / n;
    mean_y += ys[i] / n;
  }
  double sxx = 0.0, sxy = 0.0;
  for (size_t i = 0; i < xs.size(); ++i) {
    sxx += (xs[i] - mean_x) * (xs[i] - mean_x);
    sxy += (xs[i] - mean_x) * (ys[i] - mean_y);
  }
  if (sxx <= 0.0) return {0.0, mean_x > 0.0 ? mean_y / mean_x : 0.0};
  NgramProposeCost cost{0.0, std::max(0.0, sxy / sxx)};
  cost.seconds_per_seq = mean_y - cost.seconds_per_context_token * mean_x;
  if (cost.seconds_per_seq < 0.0) {
    // Through the origin instead: the least-squares slope of y = b x.
    double sxy0 = 0.0, sxx0 = 0.0;
    for (size_t i = 0; i < xs.size(); ++i) {
      sxy0 += xs[i] * ys[i];
      sxx0 += xs[i] * xs[i];
    }
    cost = {0.0, sxx0 > 0.0 ? sxy0 / sxx0 : 0.0};
  }
  return cost;
}

}  // namespace tidal::profile
