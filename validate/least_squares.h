// Bounded nonlinear least squares (Levenberg-Marquardt with a forward-difference Jacobian), for
// fitting a few coefficients of a simulation to measurements. Deterministic: no randomness, and
// the residual function is evaluated in a fixed order.
#pragma once

#include <functional>
#include <vector>

namespace tidal::validate {

struct LeastSquaresProblem {
  std::vector<double> initial;  // [num_params]
  std::vector<double> lower;    // [num_params] bounds the parameters stay within
  std::vector<double> upper;    // [num_params]
  std::vector<double> step;     // [num_params] finite-difference step per parameter
  // [num_residuals] for the parameters; the same length for every call.
  std::function<std::vector<double>(const std::vector<double>&)> residuals;
};

struct LeastSquaresResult {
  std::vector<double> params;          // [num_params]
  std::vector<double> standard_error;  // [num_params] sqrt(diag((J'J)^-1) * SSR / (m - n))
  double sum_of_squares = 0.0;         // at params
  int num_iterations = 0;
  int num_evaluations = 0;
};

// Stops after max_iterations, or when a step improves the sum of squares by less than
// relative_tolerance. std::invalid_argument on inconsistent sizes or initial values outside the
// bounds.
LeastSquaresResult fit_least_squares(const LeastSquaresProblem& problem, int max_iterations = 12,
                                     double relative_tolerance = 1e-4);

}  // namespace tidal::validate
