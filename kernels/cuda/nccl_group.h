// NCCL ranks for tensor parallelism: all-reduce (sum) of fp32 device buffers such as the
// [num_tokens, hidden] outputs of the row-parallel O and down projections.
//   one process:   NcclRank::init_all({0, 1, ...}) (ncclCommInitAll), one rank per device;
//   several:       rank 0 calls make_nccl_unique_id(), ships the bytes to the others by any
//                  means (file, MPI, socket), and every process constructs NcclRank(id, ...).
// Each rank's calls must come from a thread whose current device is the rank's device; the
// ranks of one process must call all_reduce_sum concurrently (one thread per rank).
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <memory>
#include <vector>

namespace tidal::kernels::cuda {

using NcclUniqueId = std::array<char, 128>;  // the bytes of an ncclUniqueId

NcclUniqueId make_nccl_unique_id();

class NcclRank {
 public:
  static std::vector<std::unique_ptr<NcclRank>> init_all(const std::vector<int>& devices);
  NcclRank(const NcclUniqueId& id, int rank, int world_size, int device);
  ~NcclRank();
  NcclRank(const NcclRank&) = delete;
  NcclRank& operator=(const NcclRank&) = delete;

  int rank() const { return rank_; }
  int world_size() const { return world_size_; }
  int device() const { return device_; }
  // buf[i] = sum over ranks of buf[i], enqueued on `stream` (stream-ordered, asynchronous).
  void all_reduce_sum(float* buf,  // [count] device memory
                      size_t count, cudaStream_t stream);

 private:
  struct Comm;
  NcclRank(std::unique_ptr<Comm> comm, int rank, int world_size, int device);
  std::unique_ptr<Comm> comm_;
  int rank_;
  int world_size_;
  int device_;
};

}  // namespace tidal::kernels::cuda
