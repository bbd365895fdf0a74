// What a plotted number means and how to print it: run time in s/min/h, latencies in ms/s,
// shares as percent, dollars, rates. Axes pick one display scale for all their ticks; hover
// read-outs print each value with three significant digits in its own best scale.
#pragma once

#include <string>
#include <string_view>

namespace tidal::ui::plot {

enum class Unit {
  count,           // plain number: requests, replicas, sequences
  run_time,        // simulated seconds since the run started (time axes)
  wall_time,       // real seconds since something started (a run's progress)
  latency,         // seconds
  share,           // 0..1, shown as percent
  dollars,         // $
  dollars_per_1m,  // $ per million tokens
  requests_per_s,  // req/s
  tokens_per_s,    // tok/s
  tokens,          // token counts
};

// shown value = value * factor, followed by `suffix` ("ms", "%", "min", ...).
struct DisplayScale {
  double factor = 1.0;
  std::string_view suffix;
};

// The scale an axis uses when its largest absolute value is `max_abs`.
DisplayScale display_scale(Unit unit, double max_abs);

// The axis caption: the unit's name with the scale's suffix, e.g. "time (min)", "$".
std::string axis_caption(Unit unit, const DisplayScale& scale);

// One tick label: `shown` (already scaled) with `decimals` decimals and thousands separators.
std::string format_tick(double shown, int decimals);

// A value with its unit for read-outs and tables: "850 ms", "1.23 s", "45.2%", "$1,234.50",
// "12.5 req/s", "12.5 min". NaN prints as "-".
std::string format_value(double value, Unit unit);

// `value` with thousands separators and `decimals` decimals: 1234567.891, 2 -> "1,234,567.89".
std::string group_thousands(double value, int decimals);

}  // namespace tidal::ui::plot
