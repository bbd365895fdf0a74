#include "validate/stats.h"

#include <gtest/gtest.h>

namespace tidal::validate {
namespace {

TEST(Stats, NearestRankPercentiles) {
  const Distribution d = describe({5, 1, 4, 2, 3, 6, 7, 8, 9, 10});
  EXPECT_EQ(d.count, 10);
  EXPECT_DOUBLE_EQ(d.mean, 5.5);
  EXPECT_DOUBLE_EQ(d.p50, 5.0);   // ceil(0.5 * 10) = 5th
  EXPECT_DOUBLE_EQ(d.p90, 9.0);   // 9th
  EXPECT_DOUBLE_EQ(d.p99, 10.0);  // ceil(9.9) = 10th
  const Distribution empty = describe({});
  EXPECT_EQ(empty.count, 0);
  EXPECT_DOUBLE_EQ(empty.p99, 0.0);
  const Distribution one = describe({0.25});
  EXPECT_DOUBLE_EQ(one.p50, 0.25);
  EXPECT_DOUBLE_EQ(one.p99, 0.25);
}

TEST(Stats, PercentErrors) {
  EXPECT_DOUBLE_EQ(*signed_pct_error(110.0, 100.0), 10.0);
  EXPECT_DOUBLE_EQ(*signed_pct_error(90.0, 100.0), -10.0);
  EXPECT_DOUBLE_EQ(*abs_pct_error(90.0, 100.0), 10.0);
  EXPECT_DOUBLE_EQ(*signed_pct_error(0.5, 2.0), -75.0);
  EXPECT_DOUBLE_EQ(*signed_pct_error(0.0, 0.0), 0.0);
  EXPECT_FALSE(signed_pct_error(1.0, 0.0).has_value());
  EXPECT_FALSE(abs_pct_error(-1.0, 0.0).has_value());
}

TEST(Stats, KolmogorovSmirnovDistance) {
  EXPECT_DOUBLE_EQ(ks_distance({1, 2, 3}, {1, 2, 3}), 0.0);
  EXPECT_DOUBLE_EQ(ks_distance({1, 2, 3}, {4, 5, 6}), 1.0);
  // F_a jumps at 1, 2, 3, 4 by 1/4; F_b at 3, 4, 5, 6: at x = 2, F_a = 0.5 and F_b = 0.
  EXPECT_DOUBLE_EQ(ks_distance({1, 2, 3, 4}, {3, 4, 5, 6}), 0.5);
  // Ties across samples: at x = 1, F_a = 2/3, F_b = 1/2.
  EXPECT_DOUBLE_EQ(ks_distance({1, 1, 2}, {1, 2}), 2.0 / 3.0 - 0.5);
  // Different sizes: {1} vs {1, 2, 3, 4}: at 1, 1 - 1/4.
  EXPECT_DOUBLE_EQ(ks_distance({1}, {4, 3, 2, 1}), 0.75);
  EXPECT_DOUBLE_EQ(ks_distance({}, {}), 0.0);
  EXPECT_DOUBLE_EQ(ks_distance({}, {1.0}), 1.0);
  EXPECT_DOUBLE_EQ(ks_distance({2, 1}, {1, 2}), 0.0);  // order does not matter
}

}  // namespace
}  // namespace tidal::validate
