#include "engine/profile/rank_threads.h"

namespace tidal::profile {

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
    std::unique_lock<std::mutex> lock(mutex_);
    job_done_.wait(lock, [&] { return num_pending_ == 0; });
  }
  for (const std::exception_ptr& e : errors_) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace tidal::profile
