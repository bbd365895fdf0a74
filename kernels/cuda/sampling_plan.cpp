#include "kernels/cuda/sampling_plan.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <stdexcept>

namespace tidal::kernels::cuda {

SamplingPlan plan_sampling(int64_t vocab, const SamplingParams& params) {
  if (!(params.temperature >= 0.0f) || params.top_k < 0 || !(params.top_p > 0.0f) ||
      params.top_p > 1.0f || vocab <= 0 || vocab > INT_MAX) {
    throw std::invalid_argument(
        "cuda sample: need temperature >= 0, top_k >= 0, 0 < top_p <= 1, 0 < vocab < 2^31");
  }
  SamplingPlan plan;
  plan.greedy = params.temperature == 0.0f;
  plan.top_k_cut = !plan.greedy && params.top_k > 0 && params.top_k < vocab;
  plan.top_p_cut = !plan.greedy && params.top_p < 1.0f;
  // Every weight is <= 1, so the sum of vocab of them stays below 2^63 at this resolution.
  const int vocab_bits = std::bit_width(static_cast<uint64_t>(vocab));
  plan.fixed_point_bits = std::min(52, 63 - vocab_bits);
  // argmax (the max of the row) is always the first pass.
  plan.passes_over_row = 1;
  if (!plan.greedy) {
    if (plan.top_k_cut) plan.passes_over_row += kSampleDigitPasses + 1;  // + the tie index cut
    plan.passes_over_row += 1;  // total mass (with the first top-p digit)
    if (plan.top_p_cut) plan.passes_over_row += (kSampleDigitPasses - 1) + 1 + 1;  // check, ties
    plan.passes_over_row += 2;  // the draw: in-order chunk sums, then the crossing
    // exp() of every kept logit: the total mass; without top-p the draw's two passes cover
    // every kept logit too (with top-p only the nucleus).
    plan.weight_passes = plan.top_p_cut ? 1 : 3;
  }
  // Histograms (counts and masses share one uint64 array), the in-order scans of the tie cut and
  // the draw, and the block reductions' 32-slot scratches.
  plan.shared_bytes = kSampleBins * sizeof(unsigned long long) +
                      kSampleThreads * (sizeof(long long) + sizeof(double)) +
                      32 * (sizeof(float) + 2 * sizeof(long long) + sizeof(double));
  return plan;
}

}  // namespace tidal::kernels::cuda
