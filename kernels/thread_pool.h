// A small fixed-size pool of worker threads for splitting kernels over rows, heads or sequences.
// parallel_for cuts [0, count) into at most num_threads() contiguous ranges; each index is
// handled by exactly one call, so kernels that compute each row independently give the same
// bytes at every thread count.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tidal::kernels {

class ThreadPool {
 public:
  // num_threads >= 1 (the calling thread counts as one; 1 runs everything inline).
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return num_threads_; }

  // Calls fn(begin, end) on disjoint ranges covering [0, count); ranges hold at least
  // min_per_range indices (except when count is smaller). Returns when every call returned.
  // Not reentrant: fn must not call parallel_for on the same pool.
  void parallel_for(int64_t count, int64_t min_per_range,
                    const std::function<void(int64_t begin, int64_t end)>& fn);

  // Calls fn(begin, end) once per fixed block [b * block_size, min((b + 1) * block_size,
  // count)), blocks spread over the threads: the blocks, unlike parallel_for's ranges, do not
  // depend on the thread count (for kernels whose arithmetic depends on the block shape).
  void parallel_for_blocks(int64_t count, int64_t block_size,
                           const std::function<void(int64_t begin, int64_t end)>& fn);

 private:
  void worker_loop(int worker_index);

  int num_threads_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable work_done_;
  const std::function<void(int64_t, int64_t)>* task_ = nullptr;
  std::vector<int64_t> range_starts_;  // [num_ranges_ + 1]
  int num_ranges_ = 0;
  int64_t generation_ = 0;
  int num_pending_ = 0;
  bool stopping_ = false;
};

}  // namespace tidal::kernels
