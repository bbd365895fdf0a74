// Whether the drafter proposes at a sequence's next decoding step. Prompt lookup (n-gram)
// proposes only when the sequence's last tokens occurred earlier in it; the simulator draws that
// per sequence and step with the step's proposal rate from a seeded stream (docs/scenario.md,
// "Speculative decoding"). At rate 1 nothing is drawn: every decoding step drafts k.
#pragma once

#include <cstdint>

#include "traces/random.h"

namespace tidal::sim {

class ProposalModel {
 public:
  explicit ProposalModel(uint64_t seed);
  // Draws one decision: true with probability proposal_rate (true without a draw at >= 1).
  bool proposes(double proposal_rate);

 private:
  traces::Rng rng_;
};

}  // namespace tidal::sim
