// Softmax: optimized vs reference within 1e-6 relative; rows sum to one; large logits are safe.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <gtest/gtest.h>

#include "kernels/cpu/softmax.h"
#include "tests/kernels/test_random.h"

namespace tidal::kernels {
namespace {

TEST(Softmax, OptimizedMatchesReference) {
  std::mt19937_64 rng(41);
  ThreadPool pool(3);
  for (int trial = 0; trial < 10; ++trial) {
    const int64_t rows = testing::uniform_int(rng, 1, 20);
    const int64_t cols = testing::uniform_int(rng, 1, 3000);
    std::vector<float> expected = testing::random_values(rng, rows * cols, 30.0f);
    std::vector<float> actual = expected;
    reference::softmax(expected.data(), rows, cols);
    cpu::softmax(pool, actual.data(), rows, cols);
    EXPECT_LT(testing::relative_error(actual, expected), 1e-6);
    for (int64_t r = 0; r < rows; ++r) {
      const double sum =
          std::accumulate(actual.begin() + r * cols, actual.begin() + (r + 1) * cols, 0.0);
      EXPECT_NEAR(sum, 1.0, 1e-5);
    }
  }
}

// The fp32 reference's running sum over a long row drifts; the double one stays within one
// rounding of the exact value, and both sum to one.
TEST(Softmax, InDoubleIsTheRoundedExactValue) {
  std::mt19937_64 rng(43);
  const int64_t rows = 3, cols = 50000;
  const std::vector<float> logits = testing::random_values(rng, rows * cols, 8.0f);
  std::vector<float> exact(logits.size());
  reference::softmax_in_double(logits.data(), rows, cols, exact.data());
  std::vector<float> running = logits;
  reference::softmax(running.data(), rows, cols);
  EXPECT_LT(testing::relative_error(running, exact), 1e-3);
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = logits.data() + r * cols;
    const double max_value = *std::max_element(row, row + cols);
    double sum = 0.0;
    for (int64_t i = 0; i < cols; ++i) sum += std::exp(static_cast<double>(row[i]) - max_value);
    for (int64_t i = 0; i < cols; i += 997) {
      const double value = std::exp(static_cast<double>(row[i]) - max_value) / sum;
      EXPECT_NEAR(exact[r * cols + i], value, value * 1e-7);
    }
  }
}

TEST(Softmax, LargeLogitsStayFinite) {
  std::vector<float> x = {1000.0f, 999.0f, -1000.0f};
  reference::softmax(x.data(), 1, 3);
  EXPECT_NEAR(x[0], 1.0 / (1.0 + std::exp(-1.0)), 1e-6);
  EXPECT_EQ(x[2], 0.0f);
}

}  // namespace
}  // namespace tidal::kernels
