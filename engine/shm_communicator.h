// The CPU tensor-parallel communicator: ranks are threads of one process that meet at a
// barrier and sum each other's buffers in shared memory.
//
// all_reduce_sum: every rank publishes its buffer, then rank r sums chunk r of the elements over
// all ranks in rank order (((b0 + b1) + b2) + ...) and writes the sum into chunk r of every
// rank's buffer. The summation order is fixed, so every rank ends with identical bytes and a run
// is reproducible. Two barrier waits per call; the ranks spin at the barrier before blocking
// (engine/spin_wait.h), as busy-polling collectives do.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "engine/spin_wait.h"
#include "models/communicator.h"

namespace tidal::engine {

class SharedMemoryGroup;

// One rank's handle; it must be used by one thread only.
class SharedMemoryCommunicator final : public models::Communicator {
 public:
  SharedMemoryCommunicator(SharedMemoryGroup& group, int rank) : group_(group), rank_(rank) {}
  int rank() const override { return rank_; }
  int world_size() const override;
  void all_reduce_sum(float* buf, size_t count) override;  // buf: [count]

 private:
  SharedMemoryGroup& group_;
  int rank_;
};

// The shared state of `world_size` ranks. Every rank must call all_reduce_sum the same number of
// times with the same counts (std::logic_error on all ranks when counts differ).
class SharedMemoryGroup {
 public:
  explicit SharedMemoryGroup(int world_size);  // std::invalid_argument when < 1
  SharedMemoryGroup(const SharedMemoryGroup&) = delete;
  SharedMemoryGroup& operator=(const SharedMemoryGroup&) = delete;

  int world_size() const { return world_size_; }
  SharedMemoryCommunicator& communicator(int rank) { return *communicators_.at(rank); }

 private:
  friend class SharedMemoryCommunicator;
  void all_reduce_sum(int rank, float* buf, size_t count);

  int world_size_;
  SpinBarrier barrier_;
  std::vector<float*> buffers_;  // [world_size] each rank's buffer in the current call
  std::vector<size_t> counts_;   // [world_size] each rank's count in the current call
  std::vector<std::unique_ptr<SharedMemoryCommunicator>> communicators_;  // [world_size]
};

}  // namespace tidal::engine
