// The bounded Levenberg-Marquardt fit: recovers known coefficients, keeps to its bounds, and
// reports standard errors that shrink with less noise.
#include "validate/least_squares.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace tidal::validate {
namespace {

// y = a * exp(b * x) + c at x = 0..19, with a deterministic perturbation of relative size `noise`.
LeastSquaresProblem exponential_problem(double noise) {
  LeastSquaresProblem p;
  p.initial = {1.0, 0.05, 0.0};
  p.lower = {0.0, -1.0, -10.0};
  p.upper = {100.0, 1.0, 10.0};
  p.step = {1e-4, 1e-6, 1e-4};
  p.residuals = [noise](const std::vector<double>& q) {
    std::vector<double> r;
    for (int i = 0; i < 20; ++i) {
      const double x = i;
      const double truth = 3.0 * std::exp(0.1 * x) + 2.0;
      const double measured = truth * (1.0 + noise * ((i % 2 == 0) ? 1.0 : -1.0));
      r.push_back((q[0] * std::exp(q[1] * x) + q[2] - measured) / measured);
    }
    return r;
  };
  return p;
}

TEST(LeastSquares, RecoversKnownCoefficients) {
  const LeastSquaresResult fit = fit_least_squares(exponential_problem(0.0), 50, 1e-12);
  EXPECT_NEAR(fit.params[0], 3.0, 1e-4);
  EXPECT_NEAR(fit.params[1], 0.1, 1e-6);
  EXPECT_NEAR(fit.params[2], 2.0, 1e-3);
  EXPECT_LT(fit.sum_of_squares, 1e-12);
}

TEST(LeastSquares, StandardErrorsGrowWithNoise) {
  const LeastSquaresResult quiet = fit_least_squares(exponential_problem(0.001), 50, 1e-12);
  const LeastSquaresResult noisy = fit_least_squares(exponential_problem(0.02), 50, 1e-12);
  EXPECT_GT(noisy.standard_error[0], quiet.standard_error[0]);
  EXPECT_NEAR(noisy.params[1], 0.1, 0.01);
}

TEST(LeastSquares, StaysWithinBounds) {
  LeastSquaresProblem p = exponential_problem(0.0);
  p.upper[2] = 1.0;  // the true offset 2 is out of reach
  const LeastSquaresResult fit = fit_least_squares(p, 50, 1e-12);
  EXPECT_LE(fit.params[2], 1.0);
  EXPECT_GE(fit.params[0], 0.0);
}

TEST(LeastSquares, RejectsInconsistentProblems) {
  LeastSquaresProblem p = exponential_problem(0.0);
  p.initial[0] = 200.0;  // above its bound
  EXPECT_THROW(fit_least_squares(p), std::invalid_argument);
  p = exponential_problem(0.0);
  p.step.pop_back();
  EXPECT_THROW(fit_least_squares(p), std::invalid_argument);
}

}  // namespace
}  // namespace tidal::validate
