#include "perf/step_work.h"

#include <cassert>

namespace tidal::perf {

StepWorkCounter::StepWorkCounter(const ModelSpec& model, const GpuSpec& gpu,
                                 const Deployment& deployment)
    : costs_(model, gpu, deployment, RooflineOptions{}),
      peak_bandwidth_Bps_(gpu.hbm_bandwidth_Bps),
      advances_repeated_steps_(costs_.prices_by_sums()) {}

OpWork StepWorkCounter::step_work(std::span<const SeqWork> batch, RankSums& sums) const {
  assert(advances_repeated_steps_);
  sums = costs_.rank_sums(batch);
  return costs_.rank_work(sums, &memo_);
}

OpWork StepWorkCounter::repeated_step_work(RankSums& sums) const {
  assert(advances_repeated_steps_);
  // The step repeated held one new token per sequence: decodes (c = 1 on p cached tokens:
  // p + 1 pairs, p reads) and first tokens of one-token prompts (the prefill part: 1 pair, no
  // read each). Now every one of them decodes on one more cached token.
  GqaSums& decode = sums.full.decode;
  GqaSums& prefill = sums.full.prefill;
  assert(prefill.num_pairs == prefill.num_new_tokens && prefill.num_cached_reads == 0);
  decode.num_pairs += decode.num_new_tokens + 2 * prefill.num_new_tokens;
  decode.num_cached_reads += decode.num_new_tokens + prefill.num_new_tokens;
  decode.num_new_tokens += prefill.num_new_tokens;
  prefill = GqaSums{};
  return costs_.rank_work(sums, &memo_);
}

}  // namespace tidal::perf
