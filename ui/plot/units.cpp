#include "ui/plot/units.h"

#include <cmath>

#include <fmt/format.h>

namespace tidal::ui::plot {
namespace {

// Decimals giving three significant digits for a scaled value (at least 0, at most 3).
int significant_decimals(double shown) {
  const double magnitude = std::fabs(shown);
  if (magnitude >= 100.0 || magnitude == 0.0) return 0;
  if (magnitude >= 10.0) return 1;
  if (magnitude >= 1.0) return 2;
  return 3;
}

std::string with_suffix(double value, Unit unit) {
  const DisplayScale scale = display_scale(unit, std::fabs(value));
  const double shown = value * scale.factor;
  switch (unit) {
    case Unit::dollars:
      return fmt::format("${}", group_thousands(shown, std::fabs(shown) >= 1000.0 ? 0 : 2));
    case Unit::dollars_per_1m:
      return fmt::format("${} /1M tok", group_thousands(shown, 3));
    case Unit::share:
      return group_thousands(shown, 1) + "%";
    case Unit::count:
    case Unit::tokens:
      return group_thousands(shown, std::fabs(shown - std::round(shown)) < 1e-9 ? 0 : 2);
    default:
      return group_thousands(shown, significant_decimals(shown)) + " " + std::string(scale.suffix);
  }
}

}  // namespace

DisplayScale display_scale(Unit unit, double max_abs) {
  switch (unit) {
    case Unit::run_time:
    case Unit::wall_time:
      if (max_abs >= 3.0 * 3600.0) return {1.0 / 3600.0, "h"};
      if (max_abs >= 600.0) return {1.0 / 60.0, "min"};
      return {1.0, "s"};
    case Unit::latency:
      return max_abs < 1.0 ? DisplayScale{1000.0, "ms"} : DisplayScale{1.0, "s"};
    case Unit::share:
      return {100.0, "%"};
    case Unit::dollars:
      return {1.0, "$"};
    case Unit::dollars_per_1m:
      return {1.0, "$/1M tok"};
    case Unit::requests_per_s:
      return {1.0, "req/s"};
    case Unit::tokens_per_s:
      return {1.0, "tok/s"};
    case Unit::count:
    case Unit::tokens:
      return {1.0, ""};
  }
  return {1.0, ""};
}

std::string axis_caption(Unit unit, const DisplayScale& scale) {
  switch (unit) {
    case Unit::run_time:
      return fmt::format("time ({})", scale.suffix);
    case Unit::wall_time:
      return fmt::format("wall time ({})", scale.suffix);
    case Unit::latency:
      return fmt::format("latency ({})", scale.suffix);
    default:
      return std::string(scale.suffix);
  }
}

std::string group_thousands(double value, int decimals) {
  std::string digits = fmt::format("{:.{}f}", std::fabs(value), decimals);
  const size_t point = digits.find('.');
  const size_t integer_end = point == std::string::npos ? digits.size() : point;
  std::string out;
  for (size_t i = 0; i < integer_end; ++i) {
    if (i > 0 && (integer_end - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  out += digits.substr(integer_end);
  const bool negative = value < 0.0 && out.find_first_not_of("0.,") != std::string::npos;
  return negative ? fmt::format("-{}", out) : out;
}

std::string format_tick(double shown, int decimals) {
  return group_thousands(shown, decimals);
}

std::string format_value(double value, Unit unit) {
  if (std::isnan(value)) return "-";
  return with_suffix(value, unit);
}

}  // namespace tidal::ui::plot
