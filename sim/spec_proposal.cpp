#include "sim/spec_proposal.h"

namespace tidal::sim {

ProposalModel::ProposalModel(double proposal_rate, uint64_t seed)
    : proposal_rate_(proposal_rate), rng_(seed) {}

bool ProposalModel::proposes() {
  return rng_.uniform01() < proposal_rate_;
}

}  // namespace tidal::sim
