#include "sim/spec_proposal.h"

namespace tidal::sim {

ProposalModel::ProposalModel(uint64_t seed) : rng_(seed) {}

bool ProposalModel::proposes(double proposal_rate) {
  if (proposal_rate >= 1.0) return true;
  return rng_.uniform01() < proposal_rate;
}

}  // namespace tidal::sim
