// parallel_for: every item once, results by index whatever the number of threads, and an item's
// exception rethrown to the caller instead of ending the process.
#include "validate/parallel_for.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "base/input_error.h"

namespace tidal::validate {
namespace {

std::vector<int64_t> squares(size_t n, int num_threads, size_t* num_done) {
  std::vector<int64_t> out(n, -1);  // [n]
  *num_done = 0;
  parallel_for(
      n, num_threads, [&](size_t i) { out[i] = static_cast<int64_t>(i * i); },
      [&](size_t, double seconds) {
        EXPECT_GE(seconds, 0.0);
        ++*num_done;  // one call at a time
      });
  return out;
}

TEST(ParallelFor, EveryItemOnceByIndexWhateverTheThreads) {
  size_t num_done = 0;
  const std::vector<int64_t> one = squares(1000, 1, &num_done);
  EXPECT_EQ(num_done, 1000u);
  for (int threads : {2, 4, 64}) {
    EXPECT_EQ(squares(1000, threads, &num_done), one);
    EXPECT_EQ(num_done, 1000u);
  }
  EXPECT_EQ(one[999], 999 * 999);
  EXPECT_TRUE(squares(0, 4, &num_done).empty());
  EXPECT_EQ(num_done, 0u);
  EXPECT_EQ(squares(3, 0, &num_done).size(), 3u);  // fewer than one thread: one
  EXPECT_EQ(num_done, 3u);
}

TEST(ParallelFor, AnItemsErrorReachesTheCaller) {
  for (int threads : {1, 3}) {
    std::vector<char> ran(100, 0);  // [100]
    try {
      parallel_for(100, threads, [&](size_t i) {
        ran[i] = 1;
        if (i == 10) throw InputError("row 10: bad");
      });
      FAIL() << "no error";
    } catch (const InputError& e) {
      EXPECT_STREQ(e.what(), "row 10: bad");
    }
    EXPECT_EQ(ran[10], 1);
    if (threads == 1) {
      EXPECT_EQ(ran[11], 0);  // nothing started after it
    }
  }
}

}  // namespace
}  // namespace tidal::validate
