#include "perf/interpolation.h"

#include <algorithm>
#include <cassert>

namespace tidal::perf {
namespace {

// Where x falls on an axis: the lower index, the weight of the upper point, and the scale factor
// applied above the last point.
struct AxisPosition {
  std::size_t lower = 0;
  double upper_weight = 0.0;
  double scale = 1.0;
};

AxisPosition locate(std::span<const double> axis, double x) {
  const std::size_t n = axis.size();
  if (n == 1 || x <= axis.front()) return {0, 0.0, x > axis.front() ? x / axis.front() : 1.0};
  if (x >= axis.back()) return {n - 1, 0.0, x / axis.back()};
  const auto upper = std::upper_bound(axis.begin(), axis.end(), x);
  const std::size_t hi = static_cast<std::size_t>(upper - axis.begin());
  const std::size_t lo = hi - 1;
  return {lo, (x - axis[lo]) / (axis[hi] - axis[lo]), 1.0};
}

}  // namespace

Table1D::Table1D(std::vector<double> xs, std::vector<double> ys)
    : xs_(std::move(xs)), ys_(std::move(ys)) {
  assert(!xs_.empty() && xs_.size() == ys_.size());
}

double Table1D::operator()(double x) const {
  const AxisPosition at = locate(xs_, x);
  double y = ys_[at.lower];
  if (at.upper_weight > 0.0) y += at.upper_weight * (ys_[at.lower + 1] - y);
  return y * at.scale;
}

Table2D::Table2D(std::vector<double> rows, std::vector<double> cols, std::vector<double> values)
    : rows_(std::move(rows)), cols_(std::move(cols)), values_(std::move(values)) {
  assert(!rows_.empty() && !cols_.empty() && values_.size() == rows_.size() * cols_.size());
}

double Table2D::operator()(double row, double col) const {
  const AxisPosition r = locate(rows_, row);
  const AxisPosition c = locate(cols_, col);
  const std::size_t num_cols = cols_.size();
  auto at = [&](std::size_t i, std::size_t j) { return values_[i * num_cols + j]; };
  auto along_cols = [&](std::size_t i) {
    double v = at(i, c.lower);
    if (c.upper_weight > 0.0) v += c.upper_weight * (at(i, c.lower + 1) - v);
    return v;
  };
  double value = along_cols(r.lower);
  if (r.upper_weight > 0.0) value += r.upper_weight * (along_cols(r.lower + 1) - value);
  return value * r.scale * c.scale;
}

}  // namespace tidal::perf
