// Recording a forward step's device work once and replaying it (CUDA graphs on the CUDA backend).
// The forward pass (models::PagedModel) decides which steps qualify, pads them to a recorded
// batch size and keeps the step's inputs at fixed addresses; an implementation records the
// launches and replays them. Graphs are keyed by (batch size, block-table width): the width is
// part of the recorded kernel arguments (attention's context split and table stride).
#pragma once

#include <cstdint>
#include <functional>

#include "kernels/attention_batch.h"

namespace tidal::kernels {

class StepGraphs {
 public:
  virtual ~StepGraphs() = default;
  // The recorded batch size a decode step of num_seqs sequences runs as (>= num_seqs, the extra
  // rows padding); -1 when the step runs without a graph.
  virtual int64_t padded_batch_size(int64_t num_seqs) const = 0;
  // The largest recorded batch size (what fixed input buffers must hold).
  virtual int64_t max_batch_size() const = 0;
  // Grows the backend's scratch so that a step shaped like `batch` (linears of at most
  // max_cols inputs) allocates nothing; call before capture. Growth invalidates earlier graphs.
  virtual void reserve(const AttentionBatch& batch, int64_t block_size, int64_t max_cols) = 0;
  // A graph of this key is recorded and still valid (no scratch growth since).
  virtual bool has(int64_t batch_size, int64_t blocks_per_seq) const = 0;
  // Records what `step` launches (it must launch only, allocate nothing and read inputs from
  // fixed addresses); nothing runs until replay.
  virtual void capture(int64_t batch_size, int64_t blocks_per_seq,
                       const std::function<void()>& step) = 0;
  virtual void replay(int64_t batch_size, int64_t blocks_per_seq) = 0;
};

}  // namespace tidal::kernels
