// Runs one job on every tensor-parallel rank at once, the way engine::TensorParallelExecutor
// does: rank 0 on the calling thread, ranks 1..tp-1 each on a worker thread of its own that
// sleeps on a condition variable between jobs. The profiler times forwards through this so that
// rank wake-ups and barrier waits cost what they cost in the engine.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tidal::profile {

class RankThreads {
 public:
  explicit RankThreads(int world_size);  // starts world_size - 1 workers
  ~RankThreads();
  RankThreads(const RankThreads&) = delete;
  RankThreads& operator=(const RankThreads&) = delete;

  // Calls fn(rank) for every rank concurrently and returns when all have finished; rethrows the
  // lowest rank's exception.
  void run(const std::function<void(int rank)>& fn);

 private:
  void worker_loop(int rank);

  std::vector<std::thread> workers_;  // [world_size - 1], worker i runs rank i + 1
  std::mutex mutex_;
  std::condition_variable job_ready_;
  std::condition_variable job_done_;
  const std::function<void(int)>* job_ = nullptr;
  int64_t generation_ = 0;
  int num_pending_ = 0;
  bool stopping_ = false;
  std::vector<std::exception_ptr> errors_;  // [world_size] of the current job
};

}  // namespace tidal::profile
