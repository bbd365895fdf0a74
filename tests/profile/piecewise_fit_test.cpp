#include "engine/profile/piecewise_fit.h"

#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace tidal::profile {
namespace {

TEST(PiecewiseFit, StraightLineNeedsOnlyTheEndpoints) {
  const std::vector<double> xs{1, 2, 4, 8, 16};
  const std::vector<double> ys{3, 5, 9, 17, 33};  // 1 + 2x
  const PiecewiseLinear fit = fit_piecewise_linear(xs, ys, 0.01);
  EXPECT_EQ(fit.knots, (std::vector<double>{1, 16}));
  ASSERT_EQ(fit.values.size(), 2u);
  EXPECT_NEAR(fit.values[0], 3.0, 1e-9);
  EXPECT_NEAR(fit.values[1], 33.0, 1e-9);
  EXPECT_NEAR(max_relative_error(fit, xs, ys), 0.0, 1e-9);
}

TEST(PiecewiseFit, AddsTheWorstPointAsAKnot) {
  // Flat, then a kink at x = 4: two segments reproduce every point.
  const std::vector<double> xs{1, 2, 4, 8, 16};
  const std::vector<double> ys{10, 10, 10, 20, 40};
  const PiecewiseLinear fit = fit_piecewise_linear(xs, ys, 0.02);
  EXPECT_LE(max_relative_error(fit, xs, ys), 0.02);
  EXPECT_EQ(fit.knots.front(), 1.0);
  EXPECT_EQ(fit.knots.back(), 16.0);
  EXPECT_LE(fit.knots.size(), 4u);
}

TEST(PiecewiseFit, NoisyPointsEndWithinTolerance) {
  const std::vector<double> xs{1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
  const std::vector<double> ys{5.0, 5.3, 4.9, 5.6, 6.1, 7.4, 9.0, 11.8, 15.2, 21.0};
  for (double tolerance : {0.0, 0.01, 0.03, 0.05}) {
    const PiecewiseLinear fit = fit_piecewise_linear(xs, ys, tolerance);
    EXPECT_LE(max_relative_error(fit, xs, ys), tolerance + 1e-12) << tolerance;
  }
  // Tolerance 0: every point a knot, exact interpolation.
  const PiecewiseLinear exact = fit_piecewise_linear(xs, ys, 0.0);
  EXPECT_EQ(exact.knots, xs);
}

TEST(PiecewiseFit, SinglePointAndZeros) {
  const std::vector<double> one{7};
  const std::vector<double> value{0.25};
  const PiecewiseLinear fit = fit_piecewise_linear(one, value, 0.03);
  EXPECT_EQ(fit.knots, one);
  EXPECT_DOUBLE_EQ(fit(7), 0.25);
  const std::vector<double> xs{1, 2, 3};
  const std::vector<double> zeros{0, 0, 0};
  const PiecewiseLinear flat = fit_piecewise_linear(xs, zeros, 0.03);
  EXPECT_DOUBLE_EQ(flat(2), 0.0);
}

TEST(PiecewiseFit, EvaluationFollowsSimPerfInterpolation) {
  PiecewiseLinear fit{{2, 4}, {1.0, 3.0}};
  EXPECT_DOUBLE_EQ(fit(1), 1.0);  // below: first value
  EXPECT_DOUBLE_EQ(fit(3), 2.0);  // linear
  EXPECT_DOUBLE_EQ(fit(8), 6.0);  // above: last value scaled by x / last knot
}

TEST(PiecewiseFit, RejectsBadInput) {
  const std::vector<double> xs{1, 1};
  const std::vector<double> ys{1, 2};
  EXPECT_THROW(fit_piecewise_linear(xs, ys, 0.03), std::invalid_argument);
  const std::vector<double> empty;
  EXPECT_THROW(fit_piecewise_linear(empty, empty, 0.03), std::invalid_argument);
  const std::vector<double> negative{-1.0, 1.0};
  const std::vector<double> ok_x{1, 2};
  EXPECT_THROW(fit_piecewise_linear(ok_x, negative, 0.03), std::invalid_argument);
}

TEST(PiecewiseFit, Median) {
  EXPECT_DOUBLE_EQ(median({}), 0.0);
  EXPECT_DOUBLE_EQ(median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5);
}

TEST(PiecewiseFit, NonNegativeLine) {
  const std::vector<double> xs{1.0, 2.0, 3.0};
  // An exact line is found exactly.
  const NonNegativeLine exact = fit_nonnegative_line(xs, std::vector<double>{5.0, 8.0, 11.0});
  EXPECT_NEAR(exact.intercept, 2.0, 1e-12);
  EXPECT_NEAR(exact.slope, 3.0, 1e-12);
  // y = -1 + 2x would need a negative intercept: the line through the origin, 22 / 14.
  const NonNegativeLine origin = fit_nonnegative_line(xs, std::vector<double>{1.0, 3.0, 5.0});
  EXPECT_DOUBLE_EQ(origin.intercept, 0.0);
  EXPECT_NEAR(origin.slope, 22.0 / 14.0, 1e-12);
  // Falling values: slope 0, the mean as intercept.
  const NonNegativeLine flat = fit_nonnegative_line(xs, std::vector<double>{3.0, 2.0, 1.0});
  EXPECT_DOUBLE_EQ(flat.slope, 0.0);
  EXPECT_NEAR(flat.intercept, 2.0, 1e-12);
  // One x: through the origin and the point.
  const NonNegativeLine single =
      fit_nonnegative_line(std::vector<double>{4.0}, std::vector<double>{8.0});
  EXPECT_DOUBLE_EQ(single.intercept, 0.0);
  EXPECT_DOUBLE_EQ(single.slope, 2.0);
  const NonNegativeLine empty = fit_nonnegative_line({}, {});
  EXPECT_DOUBLE_EQ(empty.intercept, 0.0);
  EXPECT_DOUBLE_EQ(empty.slope, 0.0);
}

}  // namespace
}  // namespace tidal::profile
