// SwiGLU, add, gather and scatter-add: optimized equals reference exactly.
#include <cmath>

#include <gtest/gtest.h>

#include "kernels/cpu/elementwise.h"
#include "tests/kernels/test_random.h"

namespace tidal::kernels {
namespace {

TEST(SwiGlu, MatchesDefinitionAndReference) {
  std::mt19937_64 rng(31);
  ThreadPool pool(3);
  for (int64_t count : {1, 17, 40000, 100003}) {
    const std::vector<float> gate = testing::random_values(rng, count, 4.0f);
    const std::vector<float> up = testing::random_values(rng, count);
    std::vector<float> expected(count), actual(count);
    reference::swiglu(gate.data(), up.data(), count, expected.data());
    cpu::swiglu(pool, gate.data(), up.data(), count, actual.data());
    EXPECT_EQ(actual, expected);
    const double g = gate[0];
    EXPECT_NEAR(expected[0], g / (1 + std::exp(-g)) * up[0], 1e-6);
  }
}

TEST(Add, OptimizedEqualsReference) {
  std::mt19937_64 rng(32);
  ThreadPool pool(2);
  for (int64_t count : {1, 999, 70001}) {
    const std::vector<float> x = testing::random_values(rng, count);
    std::vector<float> expected = testing::random_values(rng, count);
    std::vector<float> actual = expected;
    reference::add(expected.data(), x.data(), count);
    cpu::add(pool, actual.data(), x.data(), count);
    EXPECT_EQ(actual, expected);
  }
}

TEST(GatherScatter, OptimizedEqualsReference) {
  std::mt19937_64 rng(33);
  ThreadPool pool(3);
  for (int trial = 0; trial < 8; ++trial) {
    const int64_t num_src = testing::uniform_int(rng, 1, 30);
    const int64_t num_rows = testing::uniform_int(rng, 1, 60);
    const int64_t dim = testing::uniform_int(rng, 1, 900);
    const std::vector<float> src = testing::random_values(rng, num_src * dim);
    std::vector<int32_t> rows(num_rows);  // repeats on purpose: scatter must add in order
    for (int32_t& r : rows) r = static_cast<int32_t>(testing::uniform_int(rng, 0, num_src - 1));
    std::vector<float> gathered_ref(num_rows * dim), gathered(num_rows * dim);
    reference::gather_rows(src.data(), rows.data(), num_rows, dim, gathered_ref.data());
    cpu::gather_rows(pool, src.data(), rows.data(), num_rows, dim, gathered.data());
    EXPECT_EQ(gathered, gathered_ref);

    const std::vector<float> weights = testing::random_values(rng, num_rows);
    std::vector<float> dst_ref = testing::random_values(rng, num_src * dim);
    std::vector<float> dst = dst_ref;
    reference::scatter_add_rows(gathered.data(), rows.data(), weights.data(), num_rows, dim,
                                dst_ref.data());
    cpu::scatter_add_rows(pool, gathered.data(), rows.data(), weights.data(), num_rows, dim,
                          dst.data());
    EXPECT_EQ(dst, dst_ref);
  }
}

}  // namespace
}  // namespace tidal::kernels
