// Axis scales for charts: a value range widened to round ticks (1-2-5 steps on linear axes,
// powers of ten on log axes), the mapping from values to pixels, and tick labels in the axis'
// unit ("10 ms", "1 s", "50%", "$1.20", "1.5k").
#pragma once

#include <string>
#include <vector>

namespace tidal::reports {

enum class AxisUnit { number, seconds, percent, dollars };

struct AxisScale {
  double min = 0.0;
  double max = 1.0;
  bool log = false;
  std::vector<double> ticks;  // [num_ticks] in data units, ascending, within [min, max]

  // Position of `value` in [0, 1] along the axis (clamped).
  double fraction(double value) const;
};

// A linear scale covering [lo, hi] with about `target_ticks` round ticks; the ends snap to
// ticks. lo == hi gets a unit-wide range around it.
AxisScale linear_scale(double lo, double hi, int target_ticks = 5);
// A log10 scale over [lo, hi] (both > 0), ends at powers of ten, ticks at 1, 10, 100 ...
// (and 2 and 5 between when the range spans at most two decades).
AxisScale log_scale(double lo, double hi);

// Tick label for `value` on an axis of `unit`; `step` is the spacing of neighbouring ticks,
// so labels carry just enough decimals to tell them apart.
std::string tick_label(double value, double step, AxisUnit unit);

}  // namespace tidal::reports
