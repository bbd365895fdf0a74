// tidal's own samplers: fixed output for a seed, and the right moments.
#include "traces/random.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace tidal::traces {
namespace {

struct Moments {
  double mean = 0.0;
  double variance = 0.0;
};

template <typename Draw>
Moments moments_of(int64_t num_samples, Draw draw) {
  double sum = 0.0;
  double sum_squares = 0.0;
  for (int64_t i = 0; i < num_samples; ++i) {
    const double x = draw();
    sum += x;
    sum_squares += x * x;
  }
  const auto n = static_cast<double>(num_samples);
  return Moments{sum / n, sum_squares / n - (sum / n) * (sum / n)};
}

TEST(Random, RawStreamIsTheStandardMersenneTwister) {
  // std::mt19937_64's 10000th output for the default seed is fixed by the C++ standard.
  Rng rng(5489u);
  uint64_t value = 0;
  for (int i = 0; i < 10000; ++i) value = rng.next_u64();
  EXPECT_EQ(value, 9981545732273789042ULL);
}

TEST(Random, SameSeedSameSamplesAcrossDistributions) {
  Rng a(42);
  Rng b(42);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(a.uniform01(), b.uniform01());
    ASSERT_EQ(a.standard_normal(), b.standard_normal());
    ASSERT_EQ(a.gamma(0.3, 2.0), b.gamma(0.3, 2.0));
    ASSERT_EQ(a.uniform_int(-5, 5), b.uniform_int(-5, 5));
  }
}

TEST(Random, DerivedSeedsDiffer) {
  EXPECT_NE(derive_seed(1, 1), derive_seed(1, 2));
  EXPECT_NE(derive_seed(1, 1), derive_seed(2, 1));
  EXPECT_EQ(derive_seed(7, 3), derive_seed(7, 3));
}

TEST(Random, UniformIntCoversItsRangeEvenly) {
  Rng rng(3);
  std::vector<int64_t> counts(7, 0);
  for (int i = 0; i < 70000; ++i) {
    const int64_t value = rng.uniform_int(10, 16);
    ASSERT_GE(value, 10);
    ASSERT_LE(value, 16);
    ++counts[static_cast<size_t>(value - 10)];
  }
  for (const int64_t count : counts) EXPECT_NEAR(count, 10000, 400);
  EXPECT_EQ(rng.uniform_int(4, 4), 4);
}

TEST(Random, UniformIsInUnitInterval) {
  Rng rng(9);
  for (int i = 0; i < 100000; ++i) {
    const double u = rng.uniform01();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    ASSERT_GT(rng.uniform01_open_low(), 0.0);
  }
}

TEST(Random, ExponentialNormalLognormalGammaMoments) {
  Rng rng(1234);
  const Moments exponential = moments_of(400000, [&] { return rng.exponential(2.0); });
  EXPECT_NEAR(exponential.mean, 2.0, 0.02);
  EXPECT_NEAR(exponential.variance, 4.0, 0.1);
  const Moments normal = moments_of(400000, [&] { return rng.standard_normal(); });
  EXPECT_NEAR(normal.mean, 0.0, 0.01);
  EXPECT_NEAR(normal.variance, 1.0, 0.01);
  const Moments lognormal = moments_of(400000, [&] { return rng.lognormal(0.0, 0.5); });
  EXPECT_NEAR(lognormal.mean, std::exp(0.125), 0.01);
  for (const double shape : {0.25, 1.0, 4.0}) {
    const Moments gamma = moments_of(400000, [&] { return rng.gamma(shape, 3.0); });
    EXPECT_NEAR(gamma.mean, shape * 3.0, 0.02 * shape * 3.0) << shape;
    EXPECT_NEAR(gamma.variance, shape * 9.0, 0.05 * shape * 9.0) << shape;
  }
}

}  // namespace
}  // namespace tidal::traces
