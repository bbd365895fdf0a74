// kernels::StepGraphs on a CudaBackend: one DecodeGraphs per block-table width, each holding
// the graphs of default_decode_batch_sizes() captured on the backend's stream, tagged with the
// backend's scratch generation (a scratch growth makes them stale: has() is false until the
// key is captured again).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/decode_graphs.h"
#include "kernels/step_graphs.h"

namespace tidal::kernels::cuda {

class CudaStepGraphs final : public StepGraphs {
 public:
  // backend must outlive this object.
  explicit CudaStepGraphs(CudaBackend& backend);

  int64_t padded_batch_size(int64_t num_seqs) const override;
  int64_t max_batch_size() const override { return batch_sizes_.back(); }
  void reserve(const AttentionBatch& batch, int64_t block_size, int64_t max_cols) override;
  bool has(int64_t batch_size, int64_t blocks_per_seq) const override;
  void capture(int64_t batch_size, int64_t blocks_per_seq,
               const std::function<void()>& step) override;
  void replay(int64_t batch_size, int64_t blocks_per_seq) override;
  int64_t num_captures() const { return num_captures_; }  // including recaptures

 private:
  CudaBackend& backend_;
  std::vector<int64_t> batch_sizes_;                           // ascending
  std::map<int64_t, std::unique_ptr<DecodeGraphs>> by_width_;  // blocks_per_seq -> graphs
  int64_t num_captures_ = 0;
};

}  // namespace tidal::kernels::cuda
