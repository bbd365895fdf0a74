// Interpolation of measured tables. Inside a table: linear (1-D) or bilinear (2-D). Below the
// first point: the first value (fixed costs dominate small sizes). Above the last point: the last
// value scaled by x / x_last (never a silent linear extrapolation of the last segment's slope).
#pragma once

#include <span>
#include <vector>

namespace tidal::perf {

// A 1-D table: xs strictly increasing and > 0 at the last point, ys the same length, >= 1 point.
class Table1D {
 public:
  Table1D() = default;
  Table1D(std::vector<double> xs, std::vector<double> ys);

  double operator()(double x) const;
  bool empty() const { return xs_.empty(); }

 private:
  std::vector<double> xs_;  // [num_points]
  std::vector<double> ys_;  // [num_points]
};

// A 2-D grid: values row-major [num_rows, num_cols] over strictly increasing row and column axes.
class Table2D {
 public:
  Table2D() = default;
  Table2D(std::vector<double> rows, std::vector<double> cols, std::vector<double> values);

  double operator()(double row, double col) const;
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<double> rows_;    // [num_rows]
  std::vector<double> cols_;    // [num_cols]
  std::vector<double> values_;  // [num_rows, num_cols]
};

}  // namespace tidal::perf
