// Runs one job on every tensor-parallel rank at once: rank 0 on the calling thread, ranks
// 1..tp-1 each on a worker thread of its own. Between jobs a worker spins for the next one up to
// kSpinBeforeBlockNs (the engine's steps come back to back while it has work), then sleeps on a
// condition variable; the caller waits for the workers the same way.
// engine::TensorParallelExecutor runs its forwards through this, and so does the profiler's
// forward bench, so that rank wake-ups and barrier waits cost there what they cost in the engine.
// Header-only (inline) so that tidal_engine's source list needs no new entry.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/spin_wait.h"

namespace tidal::engine {

class RankThreads {
 public:
  inline explicit RankThreads(int world_size);  // starts world_size - 1 workers
  inline ~RankThreads();
  RankThreads(const RankThreads&) = delete;
  RankThreads& operator=(const RankThreads&) = delete;

  // Calls fn(rank) for every rank concurrently and returns when all have finished; rethrows the
  // lowest rank's exception.
  inline void run(const std::function<void(int rank)>& fn);

 private:
  inline void worker_loop(int rank);

  std::vector<std::thread> workers_;  // [world_size - 1], worker i runs rank i + 1
  std::mutex mutex_;
  std::condition_variable job_ready_;
  std::condition_variable job_done_;
  const std::function<void(int)>* job_ = nullptr;
  std::atomic<int64_t> generation_{0};      // written under mutex_, spun on without it
  std::atomic<int> num_pending_{0};         // written under mutex_, spun on without it
  std::atomic<bool> stopping_{false};       // written under mutex_
  std::vector<std::exception_ptr> errors_;  // [world_size] of the current job
};

RankThreads::RankThreads(int world_size) : errors_(static_cast<size_t>(world_size)) {
  for (int r = 1; r < world_size; ++r) workers_.emplace_back([this, r] { worker_loop(r); });
}

RankThreads::~RankThreads() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  job_ready_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void RankThreads::worker_loop(int rank) {
  int64_t seen_generation = 0;
  for (;;) {
    const std::function<void(int)>* job = nullptr;
    spin_until([&] { return stopping_ || generation_ != seen_generation; }, kSpinBeforeBlockNs);
    {
      std::unique_lock<std::mutex> lock(mutex_);
      job_ready_.wait(lock, [&] { return stopping_ || generation_ != seen_generation; });
      if (stopping_) return;
      seen_generation = generation_;
      job = job_;
    }
    try {
      (*job)(rank);
    } catch (...) {
      errors_[static_cast<size_t>(rank)] = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --num_pending_;
    }
    job_done_.notify_one();
  }
}

void RankThreads::run(const std::function<void(int rank)>& fn) {
  for (std::exception_ptr& e : errors_) e = nullptr;
  if (!workers_.empty()) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &fn;
      num_pending_ = static_cast<int>(workers_.size());
      ++generation_;
    }
    job_ready_.notify_all();
  }
  try {
    fn(0);
  } catch (...) {
    errors_[0] = std::current_exception();
  }
  if (!workers_.empty()) {
    spin_until([&] { return num_pending_ == 0; }, kSpinBeforeBlockNs);
    std::unique_lock<std::mutex> lock(mutex_);
    job_done_.wait(lock, [&] { return num_pending_ == 0; });
  }
  for (const std::exception_ptr& e : errors_) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace tidal::engine
