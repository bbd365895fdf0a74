#include "sim/spec_proposal.h"

namespace tidal::sim {

ProposalModel::ProposalModel(double proposal_rate, uint64_t seed)
    : proposal_rate_(proposal_rate), rng_(seed) {}

bool ProposalModel::proposes(double proposal_rate) {
  return rng_.uniform01() < proposal_rate;
}

}  // namespace tidal::sim
