// Fitting per-operator time models to measured medians: a piecewise-linear function whose knots
// are a subset of the measured points, values fitted by weighted least squares (Eigen), knots
// added greedily where the fit misses a measurement by more than the tolerance.
#pragma once

#include <span>
#include <vector>

namespace tidal::profile {

// Linear between knots; the first value below the first knot; the last value scaled by
// x / last knot above it (the rule of perf's interpolation, so the profile reproduces this
// function exactly).
struct PiecewiseLinear {
  std::vector<double> knots;   // [num_knots] strictly increasing
  std::vector<double> values;  // [num_knots] >= 0

  double operator()(double x) const;
};

// Fits ys over xs (same length >= 1, xs strictly increasing, ys >= 0). Starts from the first and
// last point as knots, fits the knot values minimising the sum of squared relative errors
// ((fit - y) / y, plain error where y == 0), and while some point's relative error exceeds
// max_relative_error makes the worst such point a knot and refits. With every point a knot the
// fit interpolates them exactly, so every point ends within the tolerance. Negative fitted values
// are clamped to 0. std::invalid_argument for mismatched, empty or unsorted input.
PiecewiseLinear fit_piecewise_linear(std::span<const double> xs, std::span<const double> ys,
                                     double max_relative_error);

// |fit(x) - y| / y (or |fit(x) - y| when y == 0), the largest over the points.
double max_relative_error(const PiecewiseLinear& fit, std::span<const double> xs,
                          std::span<const double> ys);

// The median of the values (mean of the middle two for an even count); 0 for none.
double median(std::vector<double> values);

// y = intercept + slope x fitted by least squares with both coefficients at least 0: a negative
// slope becomes 0 (intercept: the mean of ys), a negative intercept gives the least-squares line
// through the origin; a single x gives the line through the origin and the mean point. Empty
// input: {0, 0}.
struct NonNegativeLine {
  double intercept = 0.0;
  double slope = 0.0;
};
NonNegativeLine fit_nonnegative_line(std::span<const double> xs, std::span<const double> ys);

}  // namespace tidal::profile
