// The acceptance model of speculative decoding in the simulator. Each drafted token is
// accepted with probability alpha independently, and drafting stops at the first rejection,
// so the accepted drafts of one step follow a geometric distribution truncated at k:
//   P(j accepted) = alpha^j (1 - alpha) for j < k,  P(k accepted) = alpha^k.
// A step then emits 1 + j tokens (the verified prefix plus the target's own next token).
// Sampled per sequence and step from a seeded stream, so runs are reproducible and the spread
// of accepted lengths shows in ITL and TPOT (docs/scenario.md, "Speculative decoding").
#pragma once

#include <cstdint>

#include "traces/random.h"

namespace tidal::sim {

class AcceptanceModel {
 public:
  AcceptanceModel(double acceptance_rate, uint64_t seed);
  // Accepted draft tokens out of `num_drafted` (>= 0), in [0, num_drafted]; no draw when 0.
  int32_t sample_accepted(int32_t num_drafted) {
    return sample_accepted(num_drafted, acceptance_rate_);
  }
  // The same at another per-token rate (by decode step: SpeculativeSpec::by_decode_step).
  int32_t sample_accepted(int32_t num_drafted, double acceptance_rate);

 private:
  double acceptance_rate_;
  traces::Rng rng_;
};

// Expected tokens a step emits: (1 - alpha^(k+1)) / (1 - alpha), k + 1 when alpha = 1.
double expected_tokens_per_step(double acceptance_rate, int32_t num_drafted);

}  // namespace tidal::sim
