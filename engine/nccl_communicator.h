// models::Communicator over an NCCL rank, for a PagedModel running on a CudaBackend: the
// all-reduce is enqueued on the backend's stream, so it is ordered with the kernels around it.
// Lives in engine/ beside the shared-memory communicator (kernels/ must not depend on models/);
// header-only, for targets that link tidal_kernels_cuda_nccl and tidal_models.
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/nccl_group.h"
#include "models/communicator.h"

namespace tidal::engine {

class NcclCommunicator final : public models::Communicator {
 public:
  // rank and the stream must outlive this communicator.
  NcclCommunicator(kernels::cuda::NcclRank& rank, cudaStream_t stream)
      : rank_(rank), stream_(stream) {}
  int rank() const override { return rank_.rank(); }
  int world_size() const override { return rank_.world_size(); }
  void all_reduce_sum(float* buf, size_t count) override {  // buf: [count] device memory
    TIDAL_CUDA_CHECK(cudaSetDevice(rank_.device()));
    rank_.all_reduce_sum(buf, count, stream_);
  }

 private:
  kernels::cuda::NcclRank& rank_;
  cudaStream_t stream_;
};

}  // namespace tidal::engine
