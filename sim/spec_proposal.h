// Whether the drafter proposes at a sequence's next decoding step. Prompt lookup (n-gram)
// proposes only when the sequence's last tokens occurred earlier in it; the simulator draws that
// per sequence and step with probability proposal_rate from a seeded stream (docs/scenario.md,
// "Speculative decoding"). At rate 1 nothing is drawn: every decoding step drafts k.
#pragma once

#include <cstdint>

#include "traces/random.h"

namespace tidal::sim {

class ProposalModel {
 public:
  ProposalModel(double proposal_rate, uint64_t seed);
  bool always_proposes() const { return proposal_rate_ >= 1.0; }
  // Draws one decision: true with probability proposal_rate.
  bool proposes() { return proposes(proposal_rate_); }
  // The same at another rate (by decode step: SpeculativeSpec::by_decode_step).
  bool proposes(double proposal_rate);

 private:
  double proposal_rate_;
  traces::Rng rng_;
};

}  // namespace tidal::sim
