#include "reports/axis_scale.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "reports/format.h"

namespace tidal::reports {
namespace {

// The 1-2-5 step nearest to `raw`.
double nice_step(double raw) {
  const double exponent = std::floor(std::log10(raw));
  const double base = std::pow(10.0, exponent);
  const double mantissa = raw / base;
  if (mantissa <= 1.0) return base;
  if (mantissa <= 2.0) return 2.0 * base;
  if (mantissa <= 5.0) return 5.0 * base;
  return 10.0 * base;
}

// Decimals that show multiples of `step` exactly.
int decimals_for(double step) {
  if (step <= 0.0 || step >= 1.0) return 0;
  return std::clamp(static_cast<int>(std::ceil(-std::log10(step) - 1e-9)), 0, 9);
}

// 1,500 -> "1.5k", 2,000,000 -> "2M"; small numbers as they are.
std::string compact_number(double value, double step) {
  const double magnitude = std::fabs(value);
  if (magnitude >= 1e9) return format_number(value / 1e9, decimals_for(step / 1e9)) + "G";
  if (magnitude >= 1e6) return format_number(value / 1e6, decimals_for(step / 1e6)) + "M";
  if (magnitude >= 1e4) return format_number(value / 1e3, decimals_for(step / 1e3)) + "k";
  return format_number(value, decimals_for(step));
}

}  // namespace

double AxisScale::fraction(double value) const {
  double f = 0.0;
  if (log) {
    const double v = std::max(value, min);
    f = (std::log10(v) - std::log10(min)) / (std::log10(max) - std::log10(min));
  } else {
    f = (value - min) / (max - min);
  }
  return std::clamp(f, 0.0, 1.0);
}

AxisScale linear_scale(double lo, double hi, int target_ticks) {
  if (!(hi > lo)) {
    const double half = std::fabs(lo) > 0 ? std::fabs(lo) * 0.5 : 0.5;
    lo -= half;
    hi += half;
    if (lo < 0 && lo + half >= 0) lo = 0;  // keep non-negative data non-negative
  }
  const double step = nice_step((hi - lo) / std::max(1, target_ticks));
  AxisScale scale;
  scale.min = std::floor(lo / step + 1e-9) * step;
  scale.max = std::ceil(hi / step - 1e-9) * step;
  const int num_steps = static_cast<int>(std::llround((scale.max - scale.min) / step));
  for (int i = 0; i <= num_steps; ++i) scale.ticks.push_back(scale.min + i * step);
  return scale;
}

AxisScale log_scale(double lo, double hi) {
  AxisScale scale;
  scale.log = true;
  const int first = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  int last = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  if (last <= first) last = first + 1;
  scale.min = std::pow(10.0, first);
  scale.max = std::pow(10.0, last);
  const bool fine = last - first <= 2;
  for (int e = first; e <= last; ++e) {
    const double base = std::pow(10.0, e);
    scale.ticks.push_back(base);
    if (fine && e < last) {
      scale.ticks.push_back(2.0 * base);
      scale.ticks.push_back(5.0 * base);
    }
  }
  return scale;
}

std::string tick_label(double value, double step, AxisUnit unit) {
  switch (unit) {
    case AxisUnit::seconds:
      if (std::fabs(value) < 1e-3 && value != 0.0) {
        return compact_number(value * 1e6, step * 1e6) + " µs";
      }
      if (std::fabs(value) < 1.0 && value != 0.0) {
        return compact_number(value * 1e3, step * 1e3) + " ms";
      }
      return compact_number(value, step) + " s";
    case AxisUnit::percent:
      return compact_number(value * 100.0, step * 100.0) + "%";
    case AxisUnit::dollars: {
      std::string text = "$";  // not "$" + ...: GCC 12 reports a false -Wrestrict there
      return text + compact_number(value, step);
    }
    case AxisUnit::number:
      break;
  }
  return compact_number(value, step);
}

}  // namespace tidal::reports
