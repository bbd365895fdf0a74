#include "ui/plot/nice_ticks.h"

#include <algorithm>
#include <cmath>

namespace tidal::ui::plot {

double nice_step(double span, int max_ticks) {
  const double raw = span / static_cast<double>(std::max(max_ticks, 1));
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double mantissa : {1.0, 2.0, 5.0, 10.0}) {
    // A relative slack keeps 0.3 / 3 from rounding past 0.1 into the next mantissa.
    if (mantissa * magnitude >= raw * (1.0 - 1e-9)) return mantissa * magnitude;
  }
  return 10.0 * magnitude;
}

Ticks nice_ticks(double lo, double hi, int max_ticks) {
  if (hi < lo) std::swap(lo, hi);
  if (hi == lo) {
    lo -= 1.0;
    hi += 1.0;
  }
  Ticks ticks;
  ticks.step = nice_step(hi - lo, max_ticks);
  const double first = std::ceil(lo / ticks.step - 1e-9);
  const double last = std::floor(hi / ticks.step + 1e-9);
  for (double k = first; k <= last; k += 1.0) {
    const double value = k * ticks.step;
    ticks.values.push_back(value == 0.0 ? 0.0 : value);  // no -0
  }
  return ticks;
}

int tick_decimals(double step) {
  if (step >= 1.0) return 0;
  return static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
}

}  // namespace tidal::ui::plot
