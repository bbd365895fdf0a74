#include "engine/shm_communicator.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tidal::engine {

int SharedMemoryCommunicator::world_size() const {
  return group_.world_size();
}

void SharedMemoryCommunicator::all_reduce_sum(float* buf, size_t count) {
  group_.all_reduce_sum(rank_, buf, count);
}

SharedMemoryGroup::SharedMemoryGroup(int world_size)
    : world_size_(world_size),
      barrier_(std::max(world_size, 1)),
      buffers_(static_cast<size_t>(std::max(world_size, 1)), nullptr),
      counts_(static_cast<size_t>(std::max(world_size, 1)), 0) {
  if (world_size < 1) {
    throw std::invalid_argument("SharedMemoryGroup: world size must be >= 1, got " +
                                std::to_string(world_size));
  }
  for (int r = 0; r < world_size; ++r) {
    communicators_.push_back(std::make_unique<SharedMemoryCommunicator>(*this, r));
  }
}

void SharedMemoryGroup::all_reduce_sum(int rank, float* buf, size_t count) {
  if (world_size_ == 1) return;
  const auto r = static_cast<size_t>(rank);
  buffers_[r] = buf;
  counts_[r] = count;
  barrier_.arrive_and_wait();  // every buffer is published
  // Every rank sees the same counts, so every rank throws or none does.
  if (std::any_of(counts_.begin(), counts_.end(), [&](size_t c) { return c != counts_[0]; })) {
    barrier_.arrive_and_wait();
    throw std::logic_error("SharedMemoryGroup::all_reduce_sum: ranks passed different counts");
  }
  const size_t ranks = buffers_.size();
  const size_t begin = count * r / ranks;
  const size_t end = count * (r + 1) / ranks;
  for (size_t i = begin; i < end; ++i) {
    float sum = buffers_[0][i];
    for (size_t src = 1; src < ranks; ++src) sum += buffers_[src][i];
    for (size_t dst = 0; dst < ranks; ++dst) buffers_[dst][i] = sum;
  }
  barrier_.arrive_and_wait();  // every chunk is written everywhere
}

}  // namespace tidal::engine
