// Embedding lookup: the threaded copy equals the reference exactly.
#include <gtest/gtest.h>

#include "kernels/cpu/embedding.h"
#include "tests/kernels/test_random.h"

namespace tidal::kernels {
namespace {

TEST(Embedding, OptimizedEqualsReference) {
  std::mt19937_64 rng(11);
  ThreadPool pool(3);
  for (int trial = 0; trial < 10; ++trial) {
    const int64_t vocab = testing::uniform_int(rng, 1, 300);
    const int64_t hidden = testing::uniform_int(rng, 1, 200);
    const int64_t num_tokens = testing::uniform_int(rng, 1, 70);
    const std::vector<float> table = testing::random_values(rng, vocab * hidden);
    std::vector<int32_t> ids(num_tokens);
    for (int32_t& id : ids) id = static_cast<int32_t>(testing::uniform_int(rng, 0, vocab - 1));
    std::vector<float> expected(num_tokens * hidden);
    std::vector<float> actual(num_tokens * hidden);
    reference::embedding(table.data(), hidden, ids.data(), num_tokens, expected.data());
    cpu::embedding(pool, table.data(), hidden, ids.data(), num_tokens, actual.data());
    EXPECT_EQ(actual, expected);
    EXPECT_EQ(expected[hidden - 1], table[ids[0] * hidden + hidden - 1]);
  }
}

}  // namespace
}  // namespace tidal::kernels
