// Interpolation of measured kernel latencies along their size axes (tokens, batch, sequence
// length, message size). Inside the measured range: a piecewise power law through the two
// neighbouring points (linear in log size and log latency), exact at the points; it is exact
// for a latency that is constant (launch bound), linear (a GEMM's m, decode's context) or
// quadratic (prefill attention's length) between two points, and it is monotone between them.
// Outside: the nearest measured end, scaled by the roofline's ratio of the two sizes (the
// caller's `roofline(x)`; never a silent extrapolation of the last segment's slope).
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace tidal::perf {

// Latencies (seconds) measured at strictly increasing sizes, all > 0.
class MeasuredCurve {
 public:
  MeasuredCurve() = default;
  MeasuredCurve(std::vector<double> xs, std::vector<double> seconds);

  // Where x falls: inside the range the interpolated seconds; outside, the seconds of the nearest
  // end and that end's size (`anchor`), for the caller to scale.
  struct Point {
    double seconds = 0.0;
    double anchor = 0.0;  // x itself when inside
    bool inside = true;
  };
  Point at(double x) const;

  // at(x), scaled outside the range by roofline(x) / roofline(anchor).
  template <typename Roofline>
  double seconds(double x, const Roofline& roofline) const {
    const Point p = at(x);
    if (p.inside) return p.seconds;
    const double base = roofline(p.anchor);
    return base > 0.0 ? p.seconds * roofline(x) / base : p.seconds;
  }

  bool empty() const { return xs_.empty(); }
  double front() const { return xs_.front(); }
  double back() const { return xs_.back(); }
  const std::vector<double>& sizes() const { return xs_; }
  const std::vector<double>& latencies() const { return seconds_; }

 private:
  std::vector<double> xs_;       // [num_points]
  std::vector<double> seconds_;  // [num_points]
};

// The power law through (x0, y0) and (x1, y1) at x; y0 at x == x0. All values > 0.
double power_law_between(double x0, double y0, double x1, double y1, double x);

// Latencies over two axes measured as one curve over the inner axis per measured outer value
// (attention: a curve over sequence length per batch size). The grid may be ragged: the
// collectors skip large batch x length products, so each curve has its own range.
class CurveGrid {
 public:
  // outer strictly increasing and > 0; one curve per outer value.
  void add(double outer, MeasuredCurve curve);

  // Between two measured outer values: each neighbour's curve at `inner` (its own range,
  // roofline-scaled beyond it), then the power law between the two. Outside the outer range:
  // the nearest end's value scaled by roofline(outer, inner) / roofline(end, inner).
  template <typename Roofline>
  double seconds(double outer, double inner, const Roofline& roofline) const {
    auto on_curve = [&](std::size_t i) {
      const double o = outer_[i];
      return curves_[i].seconds(inner, [&](double x) { return roofline(o, x); });
    };
    const std::size_t n = outer_.size();
    if (outer <= outer_.front() || outer >= outer_.back()) {
      const std::size_t end = outer <= outer_.front() ? 0 : n - 1;
      const double value = on_curve(end);
      if (outer == outer_[end]) return value;
      const double base = roofline(outer_[end], inner);
      return base > 0.0 ? value * roofline(outer, inner) / base : value;
    }
    const std::size_t hi = upper_index(outer);
    const std::size_t lo = hi - 1;
    if (outer == outer_[lo]) return on_curve(lo);
    return power_law_between(outer_[lo], on_curve(lo), outer_[hi], on_curve(hi), outer);
  }

  bool empty() const { return outer_.empty(); }
  const std::vector<double>& outer() const { return outer_; }
  const std::vector<MeasuredCurve>& curves() const { return curves_; }

 private:
  std::size_t upper_index(double outer) const;  // first index with outer_[i] > outer

  std::vector<double> outer_;          // [num_outer]
  std::vector<MeasuredCurve> curves_;  // [num_outer]
};

}  // namespace tidal::perf
