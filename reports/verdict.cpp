#include "reports/verdict.h"

#include <cmath>

#include <fmt/format.h>

#include "reports/format.h"

namespace tidal::reports {
namespace {

constexpr double kSame = 0.005;      // ratios within 0.5% of 1 are "the same"
constexpr double kTimesFrom = 1.5;   // from 1.5x up, increases read "2.30x" instead of "+50%"
constexpr double kTimesBelow = 0.1;  // from 10x down, decreases read "12.0x" instead of "-92%"

std::string percent_change(double ratio) {
  return format_number(std::fabs(ratio - 1.0) * 100.0, 0) + "%";
}

std::string times(double ratio) {
  return format_significant(ratio) + "x";
}

}  // namespace

std::optional<double> ratio_of(const std::optional<double>& base,
                               const std::optional<double>& value) {
  if (!base || !value || *base == 0.0) return std::nullopt;
  return *value / *base;
}

std::string verdict(const MetricValue& metric, const std::string& base_label,
                    const std::optional<double>& base, const std::string& label,
                    const std::optional<double>& value) {
  if (!base || !value) {
    return fmt::format("{}: no {} to compare ({} {}, {} {})", metric.name, metric.name, base_label,
                       base ? metric.format(*base) : "n/a", label,
                       value ? metric.format(*value) : "n/a");
  }
  const std::string values = fmt::format("({} -> {})", metric.format(*base), metric.format(*value));
  if (metric.kind == MetricKind::share) {
    const double points = (*value - *base) * 100.0;
    if (std::fabs(points) < 0.05) {
      return fmt::format("{} matches {} on {} ({})", label, base_label, metric.name,
                         metric.format(*value));
    }
    return fmt::format("{} {} {} by {} points vs {} {}", label, points > 0 ? "raises" : "lowers",
                       metric.name, format_number(std::fabs(points), 1), base_label, values);
  }
  const std::optional<double> ratio = ratio_of(base, value);
  if (!ratio) {
    return fmt::format("{} {} {} vs {}", label, metric.name, values, base_label);
  }
  const double r = *ratio;
  const bool same = std::fabs(r - 1.0) < kSame;
  const bool much_lower = r <= kTimesBelow;
  switch (metric.kind) {
    case MetricKind::cost:
      if (same) {
        return fmt::format("{} costs the same {} as {} {}", label, metric.phrase, base_label,
                           values);
      }
      if (r >= kTimesFrom || much_lower) {
        return fmt::format("{} costs {} {} {} vs {} {}", label, times(r > 1 ? r : 1.0 / r),
                           r > 1 ? "more" : "less", metric.phrase, base_label, values);
      }
      return fmt::format("{} costs {} {} {} vs {} {}", label, percent_change(r),
                         r > 1 ? "more" : "less", metric.phrase, base_label, values);
    case MetricKind::latency:
    case MetricKind::amount:
    case MetricKind::neutral: {
      if (same) {
        return fmt::format("{} matches {} on {} {}", label, base_label, metric.name, values);
      }
      const char* up = "raises";
      const char* down = metric.kind == MetricKind::latency ? "cuts" : "lowers";
      if (r >= kTimesFrom || much_lower) {
        return fmt::format("{} {} {} {} vs {} {}", label, r > 1 ? up : down, metric.name,
                           times(r > 1 ? r : 1.0 / r), base_label, values);
      }
      return fmt::format("{} {} {} by {} vs {} {}", label, r > 1 ? up : down, metric.name,
                         percent_change(r), base_label, values);
    }
    case MetricKind::share:
      break;
  }
  return values;
}

}  // namespace tidal::reports
