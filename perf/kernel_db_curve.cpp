#include "perf/kernel_db_curve.h"

#include <algorithm>
#include <cassert>

namespace tidal::perf {

double power_law_between(double x0, double y0, double x1, double y1, double x) {
  if (x == x0 || y0 == y1) return y0;
  const double exponent = std::log(y1 / y0) / std::log(x1 / x0);
  return y0 * std::pow(x / x0, exponent);
}

MeasuredCurve::MeasuredCurve(std::vector<double> xs, std::vector<double> seconds)
    : xs_(std::move(xs)), seconds_(std::move(seconds)) {
  assert(!xs_.empty() && xs_.size() == seconds_.size());
  assert(std::is_sorted(xs_.begin(), xs_.end()) && xs_.front() > 0.0);
}

MeasuredCurve::Point MeasuredCurve::at(double x) const {
  if (x < xs_.front()) return {seconds_.front(), xs_.front(), false};
  if (x > xs_.back()) return {seconds_.back(), xs_.back(), false};
  const auto upper = std::upper_bound(xs_.begin(), xs_.end(), x);
  const auto hi = static_cast<std::size_t>(upper - xs_.begin());
  if (hi == xs_.size()) return {seconds_.back(), x, true};  // x == the last point
  const std::size_t lo = hi - 1;
  return {power_law_between(xs_[lo], seconds_[lo], xs_[hi], seconds_[hi], x), x, true};
}

void CurveGrid::add(double outer, MeasuredCurve curve) {
  assert(outer > 0.0 && (outer_.empty() || outer > outer_.back()) && !curve.empty());
  outer_.push_back(outer);
  curves_.push_back(std::move(curve));
}

std::size_t CurveGrid::upper_index(double outer) const {
  return static_cast<std::size_t>(std::upper_bound(outer_.begin(), outer_.end(), outer) -
                                  outer_.begin());
}

}  // namespace tidal::perf
