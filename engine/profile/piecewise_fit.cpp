#include "engine/profile/piecewise_fit.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <Eigen/Dense>

namespace tidal::profile {
namespace {

double relative_error(double fitted, double measured) {
  const double diff = std::abs(fitted - measured);
  return measured > 0.0 ? diff / measured : diff;
}

// Weighted least squares of the knot values: hat-function basis over the knots.
std::vector<double> fit_values(std::span<const double> xs, std::span<const double> ys,
                               const std::vector<double>& knots) {
  const auto num_points = static_cast<Eigen::Index>(xs.size());
  const auto num_knots = static_cast<Eigen::Index>(knots.size());
  Eigen::MatrixXd basis = Eigen::MatrixXd::Zero(num_points, num_knots);  // [points, knots]
  Eigen::VectorXd target(num_points);                                    // [points]
  for (Eigen::Index i = 0; i < num_points; ++i) {
    const double x = xs[static_cast<size_t>(i)];
    const double y = ys[static_cast<size_t>(i)];
    const double weight = y > 0.0 ? 1.0 / y : 1.0;
    // Knots cover [xs.front(), xs.back()]: find the segment holding x.
    auto upper = std::upper_bound(knots.begin(), knots.end(), x);
    Eigen::Index k = std::clamp<Eigen::Index>(upper - knots.begin(), 1, num_knots) - 1;
    if (k == num_knots - 1 || knots[static_cast<size_t>(k)] == x) {
      basis(i, k) = weight;
    } else {
      const double x0 = knots[static_cast<size_t>(k)];
      const double x1 = knots[static_cast<size_t>(k) + 1];
      const double t = (x - x0) / (x1 - x0);
      basis(i, k) = weight * (1.0 - t);
      basis(i, k + 1) = weight * t;
    }
    target(i) = weight * y;
  }
  const Eigen::VectorXd solution = basis.colPivHouseholderQr().solve(target);  // [knots]
  std::vector<double> values(knots.size());
  for (Eigen::Index k = 0; k < num_knots; ++k) {
    values[static_cast<size_t>(k)] = std::max(0.0, solution(k));
  }
  return values;
}

}  // namespace

double PiecewiseLinear::operator()(double x) const {
  if (knots.empty()) return 0.0;
  if (x <= knots.front()) return values.front();
  if (x >= knots.back()) return values.back() * (knots.back() > 0.0 ? x / knots.back() : 1.0);
  const auto upper = std::upper_bound(knots.begin(), knots.end(), x);
  const size_t k = static_cast<size_t>(upper - knots.begin()) - 1;
  const double t = (x - knots[k]) / (knots[k + 1] - knots[k]);
  return values[k] + t * (values[k + 1] - values[k]);
}

PiecewiseLinear fit_piecewise_linear(std::span<const double> xs, std::span<const double> ys,
                                     double max_relative_error_allowed) {
  if (xs.empty() || xs.size() != ys.size()) {
    throw std::invalid_argument("fit_piecewise_linear: xs and ys need the same non-zero length");
  }
  for (size_t i = 0; i < xs.size(); ++i) {
    if ((i > 0 && !(xs[i] > xs[i - 1])) || !(ys[i] >= 0.0)) {
      throw std::invalid_argument(
          "fit_piecewise_linear: xs must be strictly increasing and ys >= 0");
    }
  }
  std::vector<char> is_knot(xs.size(), 0);  // [num_points]
  is_knot.front() = 1;
  is_knot.back() = 1;
  PiecewiseLinear fit;
  while (true) {
    fit.knots.clear();
    for (size_t i = 0; i < xs.size(); ++i) {
      if (is_knot[i]) fit.knots.push_back(xs[i]);
    }
    fit.values = fit_values(xs, ys, fit.knots);
    // Done when every point is within the tolerance; otherwise the worst point that is not a
    // knot yet becomes one (with every point a knot the fit interpolates exactly).
    double worst_error = 0.0;
    size_t worst = xs.size();
    double worst_free_error = -1.0;
    for (size_t i = 0; i < xs.size(); ++i) {
      const double error = relative_error(fit(xs[i]), ys[i]);
      worst_error = std::max(worst_error, error);
      if (!is_knot[i] && error > worst_free_error) {
        worst = i;
        worst_free_error = error;
      }
    }
    if (worst_error <= max_relative_error_allowed || worst == xs.size()) break;
    is_knot[worst] = 1;
  }
  return fit;
}

double max_relative_error(const PiecewiseLinear& fit, std::span<const double> xs,
                          std::span<const double> ys) {
  double worst = 0.0;
  for (size_t i = 0; i < xs.size() && i < ys.size(); ++i) {
    worst = std::max(worst, relative_error(fit(xs[i]), ys[i]));
  }
  return worst;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lower + upper);
}

NonNegativeLine fit_nonnegative_line(std::span<const double> xs, std::span<const double> ys) {
  if (xs.empty() || xs.size() != ys.size()) return {};
  const auto n = static_cast<double>(xs.size());
  double mean_x = 0.0, mean_y = 0.0;
  for (size_t i = 0; i < xs.size(); ++i) {
    mean_x += xs[i] / n;
    mean_y += ys[i] / n;
  }
  double sxx = 0.0, sxy = 0.0;
  for (size_t i = 0; i < xs.size(); ++i) {
    sxx += (xs[i] - mean_x) * (xs[i] - mean_x);
    sxy += (xs[i] - mean_x) * (ys[i] - mean_y);
  }
  if (sxx <= 0.0) return {0.0, mean_x > 0.0 ? std::max(0.0, mean_y / mean_x) : 0.0};
  const double slope = std::max(0.0, sxy / sxx);
  const double intercept = mean_y - slope * mean_x;
  if (intercept >= 0.0) return {intercept, slope};
  double sxy0 = 0.0, sxx0 = 0.0;  // through the origin: y = b x
  for (size_t i = 0; i < xs.size(); ++i) {
    sxy0 += xs[i] * ys[i];
    sxx0 += xs[i] * xs[i];
  }
  return {0.0, sxx0 > 0.0 ? std::max(0.0, sxy0 / sxx0) : 0.0};
}

}  // namespace tidal::profile
