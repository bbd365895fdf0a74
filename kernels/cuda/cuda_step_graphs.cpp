#include "kernels/cuda/cuda_step_graphs.h"

#include <stdexcept>
#include <string>

namespace tidal::kernels::cuda {

CudaStepGraphs::CudaStepGraphs(CudaBackend& backend)
    : backend_(backend), batch_sizes_(default_decode_batch_sizes()) {}

int64_t CudaStepGraphs::padded_batch_size(int64_t num_seqs) const {
  return cuda::padded_batch_size(batch_sizes_, num_seqs);
}

void CudaStepGraphs::reserve(const AttentionBatch& batch, int64_t block_size, int64_t max_cols) {
  backend_.reserve_linear(batch.num_tokens, max_cols);
  backend_.reserve_attention(batch, block_size);
}

bool CudaStepGraphs::has(int64_t batch_size, int64_t blocks_per_seq) const {
  const auto it = by_width_.find(blocks_per_seq);
  return it != by_width_.end() && it->second->has(batch_size, backend_.scratch_generation());
}

void CudaStepGraphs::capture(int64_t batch_size, int64_t blocks_per_seq,
                             const std::function<void()>& step) {
  std::unique_ptr<DecodeGraphs>& graphs = by_width_[blocks_per_seq];
  if (!graphs) graphs = std::make_unique<DecodeGraphs>(backend_.stream());
  graphs->capture(batch_size, backend_.scratch_generation(), step);
  ++num_captures_;
}

void CudaStepGraphs::replay(int64_t batch_size, int64_t blocks_per_seq) {
  const auto it = by_width_.find(blocks_per_seq);
  if (it == by_width_.end()) {
    throw std::out_of_range("cuda step graphs: none captured for block-table width " +
                            std::to_string(blocks_per_seq));
  }
  it->second->replay(batch_size);
}

}  // namespace tidal::kernels::cuda
