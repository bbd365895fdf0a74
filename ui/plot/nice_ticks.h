// Axis ticks at "nice" numbers: steps of 1, 2 or 5 times a power of ten, at whole multiples of
// the step, so labels read 0, 250, 500 ... rather than 0, 237.3, 474.6.
#pragma once

#include <vector>

namespace tidal::ui::plot {

// The smallest step of the form {1, 2, 5} x 10^k with span / step <= max_ticks.
// Requires span > 0 and max_ticks >= 1.
double nice_step(double span, int max_ticks);

struct Ticks {
  double step = 1.0;
  std::vector<double> values;  // [num_ticks] ascending multiples of step within [lo, hi]
};

// Ticks inside [lo, hi] at multiples of nice_step(hi - lo, max_ticks). When lo == hi the range
// is widened by one unit around lo first. Values are computed as k * step (integer k), so they
// carry no accumulated rounding, and a tick at zero is exactly 0.
Ticks nice_ticks(double lo, double hi, int max_ticks);

// Decimals that show every tick of `step` distinctly (0 for steps >= 1, 1 for 0.5, 2 for 0.05).
int tick_decimals(double step);

}  // namespace tidal::ui::plot
