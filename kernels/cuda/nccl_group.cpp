#include "kernels/cuda/nccl_group.h"

#include <nccl.h>

#include <cstring>
#include <string>

#include "kernels/cuda/cuda_check.h"

#define TIDAL_NCCL_CHECK(expr)                                                                \
  do {                                                                                        \
    const ncclResult_t tidal_nccl_status = (expr);                                            \
    if (tidal_nccl_status != ncclSuccess) {                                                   \
      ::tidal::kernels::cuda::throw_cuda_error("NCCL", ncclGetErrorString(tidal_nccl_status), \
                                               #expr, __FILE__, __LINE__);                    \
    }                                                                                         \
  } while (false)

namespace tidal::kernels::cuda {

static_assert(sizeof(ncclUniqueId) == sizeof(NcclUniqueId));

struct NcclRank::Comm {
  ncclComm_t handle = nullptr;
};

NcclUniqueId make_nccl_unique_id() {
  ncclUniqueId id;
  TIDAL_NCCL_CHECK(ncclGetUniqueId(&id));
  NcclUniqueId bytes;
  std::memcpy(bytes.data(), &id, sizeof(id));
  return bytes;
}

std::vector<std::unique_ptr<NcclRank>> NcclRank::init_all(const std::vector<int>& devices) {
  const int world_size = static_cast<int>(devices.size());
  std::vector<ncclComm_t> handles(devices.size());
  TIDAL_NCCL_CHECK(ncclCommInitAll(handles.data(), world_size, devices.data()));
  std::vector<std::unique_ptr<NcclRank>> ranks;
  for (int r = 0; r < world_size; ++r) {
    auto comm = std::make_unique<Comm>();
    comm->handle = handles[r];
    ranks.push_back(
        std::unique_ptr<NcclRank>(new NcclRank(std::move(comm), r, world_size, devices[r])));
  }
  return ranks;
}

NcclRank::NcclRank(const NcclUniqueId& id, int rank, int world_size, int device)
    : comm_(std::make_unique<Comm>()), rank_(rank), world_size_(world_size), device_(device) {
  ncclUniqueId nccl_id;
  std::memcpy(&nccl_id, id.data(), sizeof(nccl_id));
  TIDAL_CUDA_CHECK(cudaSetDevice(device));
  TIDAL_NCCL_CHECK(ncclCommInitRank(&comm_->handle, world_size, nccl_id, rank));
}

NcclRank::NcclRank(std::unique_ptr<Comm> comm, int rank, int world_size, int device)
    : comm_(std::move(comm)), rank_(rank), world_size_(world_size), device_(device) {}

NcclRank::~NcclRank() {
  if (comm_ && comm_->handle != nullptr) ncclCommDestroy(comm_->handle);
}

void NcclRank::all_reduce_sum(float* buf, size_t count, cudaStream_t stream) {
  TIDAL_NCCL_CHECK(ncclAllReduce(buf, buf, count, ncclFloat32, ncclSum, comm_->handle, stream));
}

}  // namespace tidal::kernels::cuda
