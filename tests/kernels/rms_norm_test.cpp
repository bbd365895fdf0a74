// RMSNorm and fused add + RMSNorm: optimized vs reference within 1e-6 relative (fp32, only the
// summation order differs), and the reference against the definition.
#include <cmath>

#include <gtest/gtest.h>

#include "kernels/cpu/rms_norm.h"
#include "tests/kernels/test_random.h"

namespace tidal::kernels {
namespace {

constexpr double kF32Tolerance = 1e-6;

TEST(RmsNorm, ReferenceMatchesDefinition) {
  const std::vector<float> x = {1.0f, -2.0f, 3.0f, 0.5f};
  const std::vector<float> weight = {0.5f, 1.0f, 2.0f, -1.0f};
  std::vector<float> out(4);
  reference::rms_norm(x.data(), weight.data(), 1, 4, 1e-5f, out.data());
  const double rms = std::sqrt((1.0 + 4.0 + 9.0 + 0.25) / 4.0 + 1e-5);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(out[i], x[i] / rms * weight[i], 1e-6);
}

TEST(RmsNorm, OptimizedMatchesReference) {
  std::mt19937_64 rng(12);
  ThreadPool pool(3);
  for (int trial = 0; trial < 12; ++trial) {
    const int64_t rows = testing::uniform_int(rng, 1, 40);
    const int64_t dim = testing::uniform_int(rng, 1, 700);
    const std::vector<float> x = testing::random_values(rng, rows * dim, 3.0f);
    const std::vector<float> weight = testing::random_values(rng, dim);
    std::vector<float> expected(rows * dim);
    std::vector<float> actual(rows * dim);
    reference::rms_norm(x.data(), weight.data(), rows, dim, 1e-5f, expected.data());
    cpu::rms_norm(pool, x.data(), weight.data(), rows, dim, 1e-5f, actual.data());
    EXPECT_LT(testing::relative_error(actual, expected), kF32Tolerance) << rows << "x" << dim;
  }
}

TEST(RmsNorm, FusedAddMatchesReference) {
  std::mt19937_64 rng(13);
  ThreadPool pool(2);
  for (int trial = 0; trial < 12; ++trial) {
    const int64_t rows = testing::uniform_int(rng, 1, 40);
    const int64_t dim = testing::uniform_int(rng, 1, 700);
    const std::vector<float> residual = testing::random_values(rng, rows * dim);
    const std::vector<float> x = testing::random_values(rng, rows * dim);
    const std::vector<float> weight = testing::random_values(rng, dim);
    std::vector<float> expected_residual = residual;
    std::vector<float> actual_residual = residual;
    std::vector<float> expected(rows * dim);
    std::vector<float> actual(rows * dim);
    reference::add_rms_norm(expected_residual.data(), x.data(), weight.data(), rows, dim, 1e-6f,
                            expected.data());
    cpu::add_rms_norm(pool, actual_residual.data(), x.data(), weight.data(), rows, dim, 1e-6f,
                      actual.data());
    EXPECT_EQ(actual_residual, expected_residual);
    EXPECT_EQ(expected_residual[0], residual[0] + x[0]);
    EXPECT_LT(testing::relative_error(actual, expected), kF32Tolerance);
  }
}

TEST(RmsNorm, SameBytesAtEveryThreadCount) {
  std::mt19937_64 rng(14);
  const int64_t rows = 33;
  const int64_t dim = 257;
  const std::vector<float> x = testing::random_values(rng, rows * dim);
  const std::vector<float> weight = testing::random_values(rng, dim);
  std::vector<float> one(rows * dim);
  std::vector<float> many(rows * dim);
  ThreadPool pool1(1);
  ThreadPool pool4(4);
  cpu::rms_norm(pool1, x.data(), weight.data(), rows, dim, 1e-5f, one.data());
  cpu::rms_norm(pool4, x.data(), weight.data(), rows, dim, 1e-5f, many.data());
  EXPECT_EQ(one, many);
}

}  // namespace
}  // namespace tidal::kernels
