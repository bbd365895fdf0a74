#include "validate/least_squares.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <Eigen/Dense>

namespace tidal::validate {
namespace {

double sum_of_squares(const std::vector<double>& r) {
  double sum = 0.0;
  for (const double v : r) sum += v * v;
  return sum;
}

std::vector<double> clamped(std::vector<double> p, const LeastSquaresProblem& problem) {
  for (size_t j = 0; j < p.size(); ++j) p[j] = std::clamp(p[j], problem.lower[j], problem.upper[j]);
  return p;
}

void check_sizes(const LeastSquaresProblem& problem) {
  const size_t n = problem.initial.size();
  if (n == 0 || problem.lower.size() != n || problem.upper.size() != n ||
      problem.step.size() != n) {
    throw std::invalid_argument("least squares: parameter, bound and step sizes differ");
  }
  for (size_t j = 0; j < n; ++j) {
    if (!(problem.lower[j] <= problem.initial[j] && problem.initial[j] <= problem.upper[j]) ||
        !(problem.step[j] > 0.0)) {
      throw std::invalid_argument("least squares: initial value outside its bounds, or step <= 0");
    }
  }
}

}  // namespace

LeastSquaresResult fit_least_squares(const LeastSquaresProblem& problem, int max_iterations,
                                     double relative_tolerance) {
  check_sizes(problem);
  LeastSquaresResult result;
  const auto evaluate = [&](const std::vector<double>& p) {
    ++result.num_evaluations;
    return problem.residuals(p);
  };
  std::vector<double> params = problem.initial;
  std::vector<double> r = evaluate(params);
  const auto m = static_cast<Eigen::Index>(r.size());
  const auto n = static_cast<Eigen::Index>(params.size());
  double cost = sum_of_squares(r);
  double damping = 1e-3;
  Eigen::MatrixXd jacobian(m, n);  // [residuals, params]
  for (int iteration = 0; iteration < max_iterations; ++iteration) {
    result.num_iterations = iteration + 1;
    for (Eigen::Index j = 0; j < n; ++j) {
      // Forward difference, stepping back instead at the upper bound.
      std::vector<double> shifted = params;
      const auto jj = static_cast<size_t>(j);
      const double h = shifted[jj] + problem.step[jj] <= problem.upper[jj] ? problem.step[jj]
                                                                           : -problem.step[jj];
      shifted[jj] += h;
      const std::vector<double> r_shifted = evaluate(shifted);
      for (Eigen::Index i = 0; i < m; ++i) {
        jacobian(i, j) = (r_shifted[static_cast<size_t>(i)] - r[static_cast<size_t>(i)]) / h;
      }
    }
    const Eigen::Map<const Eigen::VectorXd> residual(r.data(), m);     // [residuals]
    const Eigen::MatrixXd normal = jacobian.transpose() * jacobian;    // [params, params]
    const Eigen::VectorXd gradient = jacobian.transpose() * residual;  // [params]
    bool improved = false;
    for (int attempt = 0; attempt < 8 && !improved; ++attempt) {
      Eigen::MatrixXd damped = normal;
      for (Eigen::Index j = 0; j < n; ++j) damped(j, j) += damping * std::max(normal(j, j), 1e-12);
      const Eigen::VectorXd delta = damped.ldlt().solve(-gradient);  // [params]
      std::vector<double> candidate = params;
      for (Eigen::Index j = 0; j < n; ++j) candidate[static_cast<size_t>(j)] += delta(j);
      candidate = clamped(std::move(candidate), problem);
      const std::vector<double> r_candidate = evaluate(candidate);
      const double candidate_cost = sum_of_squares(r_candidate);
      if (candidate_cost < cost) {
        const double gain = (cost - candidate_cost) / std::max(cost, 1e-300);
        params = std::move(candidate);
        r = r_candidate;
        cost = candidate_cost;
        damping = std::max(damping / 10.0, 1e-9);
        improved = true;
        if (gain < relative_tolerance) iteration = max_iterations;  // converged
      } else {
        damping *= 10.0;
      }
    }
    if (!improved) break;
  }
  result.params = params;
  result.sum_of_squares = cost;
  // Standard errors from the last Jacobian (at or next to the optimum).
  const Eigen::MatrixXd normal = jacobian.transpose() * jacobian;
  const double dof = static_cast<double>(std::max<Eigen::Index>(m - n, 1));
  const Eigen::MatrixXd covariance =
      normal.completeOrthogonalDecomposition().pseudoInverse() * (cost / dof);
  result.standard_error.resize(params.size());
  for (Eigen::Index j = 0; j < n; ++j) {
    result.standard_error[static_cast<size_t>(j)] = std::sqrt(std::max(covariance(j, j), 0.0));
  }
  return result;
}

}  // namespace tidal::validate
