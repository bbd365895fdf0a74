// Attention data parallelism: how a step's sequences are spread over a replica's attention ranks
// (Deployment::attention_dp). Each rank runs attention and the dense layers on its own sequences;
// the step waits for the slowest rank, and the MoE layers see every rank's tokens
// (TabulatedStepModel, step_costs.h).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "perf/step_time_model.h"

namespace tidal::perf {

// Round-robin in plan order: the i-th sequence with new tokens goes to rank i % num_ranks, each
// rank keeping plan order. Deterministic. SGLang's data-parallel controller hands requests to the
// ranks round-robin by default (load_balance_method); splitting each step's batch that way keeps
// the ranks within one sequence of each other, as a steady closed loop does there.
class RankSplit {
 public:
  // Splits `batch` into num_ranks >= 1 groups, reusing the buffers (no allocation once grown).
  void split(std::span<const SeqWork> batch, int32_t num_ranks);

  int32_t num_ranks() const { return static_cast<int32_t>(offsets_.size()) - 1; }
  std::span<const SeqWork> rank(int32_t r) const;

 private:
  std::vector<SeqWork> seqs_;     // [num_seqs with new tokens], grouped by rank, plan order within
  std::vector<int64_t> offsets_;  // [num_ranks + 1], where each rank's group starts in seqs_
};

}  // namespace tidal::perf
