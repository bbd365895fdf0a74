#include "kernels/thread_pool.h"

#include <algorithm>
#include <stdexcept>

namespace tidal::kernels {

ThreadPool::ThreadPool(int num_threads) : num_threads_(num_threads) {
  if (num_threads < 1) throw std::invalid_argument("ThreadPool: num_threads must be >= 1");
  workers_.reserve(num_threads - 1);
  for (int i = 1; i < num_threads; ++i) {
    workers_.emplace_back([this, i] { worker_loop(i); });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::parallel_for(int64_t count, int64_t min_per_range,
                              const std::function<void(int64_t, int64_t)>& fn) {
  if (count <= 0) return;
  const int64_t max_ranges = std::max<int64_t>(1, count / std::max<int64_t>(1, min_per_range));
  const int num_ranges = static_cast<int>(std::min<int64_t>(num_threads_, max_ranges));
  if (num_ranges == 1) {
    fn(0, count);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    range_starts_.resize(num_ranges + 1);
    for (int i = 0; i <= num_ranges; ++i) range_starts_[i] = count * i / num_ranges;
    num_ranges_ = num_ranges;
    task_ = &fn;
    num_pending_ = num_ranges - 1;
    ++generation_;
  }
  work_ready_.notify_all();
  fn(range_starts_[0], range_starts_[1]);
  std::unique_lock lock(mutex_);
  work_done_.wait(lock, [this] { return num_pending_ == 0; });
  task_ = nullptr;
}

void ThreadPool::parallel_for_blocks(int64_t count, int64_t block_size,
                                     const std::function<void(int64_t, int64_t)>& fn) {
  const int64_t num_blocks = (count + block_size - 1) / block_size;
  parallel_for(num_blocks, 1, [&](int64_t first_block, int64_t end_block) {
    for (int64_t b = first_block; b < end_block; ++b) {
      fn(b * block_size, std::min(count, (b + 1) * block_size));
    }
  });
}

void ThreadPool::worker_loop(int worker_index) {
  int64_t seen_generation = 0;
  std::unique_lock lock(mutex_);
  while (true) {
    work_ready_.wait(lock, [&] { return stopping_ || generation_ != seen_generation; });
    if (stopping_) return;
    seen_generation = generation_;
    if (worker_index >= num_ranges_) continue;
    const int64_t begin = range_starts_[worker_index];
    const int64_t end = range_starts_[worker_index + 1];
    const auto* task = task_;
    lock.unlock();
    (*task)(begin, end);
    lock.lock();
    if (--num_pending_ == 0) work_done_.notify_one();
  }
}

}  // namespace tidal::kernels
