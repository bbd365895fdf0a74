// The thread pool covers every index exactly once and respects the minimum range size.
#include <atomic>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/thread_pool.h"

namespace tidal::kernels {
namespace {

TEST(ThreadPool, CoversEveryIndexOnce) {
  for (int num_threads : {1, 2, 3, 7}) {
    ThreadPool pool(num_threads);
    for (int64_t count : {0, 1, 5, 64, 1001}) {
      std::vector<std::atomic<int>> hits(count);
      std::atomic<int> num_calls = 0;
      pool.parallel_for(count, 1, [&](int64_t begin, int64_t end) {
        ++num_calls;
        for (int64_t i = begin; i < end; ++i) ++hits[i];
      });
      for (int64_t i = 0; i < count; ++i) EXPECT_EQ(hits[i], 1) << num_threads << " " << count;
      EXPECT_LE(num_calls, num_threads);
    }
  }
}

TEST(ThreadPool, MinPerRangeLimitsTheSplit) {
  ThreadPool pool(4);
  std::atomic<int> num_calls = 0;
  pool.parallel_for(100, 60, [&](int64_t begin, int64_t end) {
    ++num_calls;
    EXPECT_EQ(begin, 0);
    EXPECT_EQ(end, 100);
  });
  EXPECT_EQ(num_calls, 1);
}

TEST(ThreadPool, ReusableManyTimes) {
  ThreadPool pool(3);
  std::atomic<int64_t> total = 0;
  for (int round = 0; round < 2000; ++round) {
    pool.parallel_for(30, 1, [&](int64_t begin, int64_t end) { total += end - begin; });
  }
  EXPECT_EQ(total, 2000 * 30);
}

TEST(ThreadPool, RejectsZeroThreads) {
  EXPECT_THROW(ThreadPool(0), std::invalid_argument);
}

}  // namespace
}  // namespace tidal::kernels
