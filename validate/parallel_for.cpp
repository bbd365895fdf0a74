#include "validate/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace tidal::validate {

void parallel_for(size_t n, int num_threads, const std::function<void(size_t)>& work,
                  const std::function<void(size_t, double)>& on_done) {
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;  // guards first_error and the on_done calls
  std::exception_ptr first_error;
  const auto run = [&] {
    for (size_t i = next++; i < n && !failed; i = next++) {
      const auto start = std::chrono::steady_clock::now();
      try {
        work(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(mutex);
        if (!first_error) first_error = std::current_exception();
        failed = true;
        return;
      }
      if (on_done) {
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const std::lock_guard<std::mutex> lock(mutex);
        on_done(i, seconds);
      }
    }
  };
  const size_t num_workers = std::min(n, static_cast<size_t>(std::max(num_threads, 1)));
  std::vector<std::thread> threads;
  for (size_t t = 1; t < num_workers; ++t) threads.emplace_back(run);
  run();  // the calling thread is one of them
  for (std::thread& t : threads) t.join();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace tidal::validate
