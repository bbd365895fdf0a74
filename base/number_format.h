// How tidal prints numbers for people: thousands separators, latencies in ms or s, dollars,
// shares and ratios. Every figure of a report (report.html, report.md, report.json) and of the
// console summary of `tidal simulate` goes through these, so a test can format a summary.json
// value the same way and find it in the output.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tidal::base {

// "15,905"; negative numbers keep their sign.
std::string format_count(int64_t value);
// Fixed decimals with thousands separators: format_number(5685.776, 1) == "5,685.8".
std::string format_number(double value, int decimals);
// Three significant digits, at least 0 decimals, separators: 0.004411 -> "0.00441",
// 4.4119 -> "4.41", 5685.8 -> "5,686".
std::string format_significant(double value);
// A latency: below 1 s in milliseconds with three significant digits ("24.9 ms", "119 ms",
// "0.512 ms"), from 1 s in seconds ("1.64 s", "12.3 s", "1,800 s").
std::string format_latency(double seconds);
// "$17.02" from $1 up (separators: "$1,234.57"), three significant digits below ("$0.0472").
std::string format_dollars(double dollars);
// A share in [0, 1] as a percentage: one decimal ("71.1%"), two decimals from 99% up so that
// "100.00%" means exactly 1 ("99.99%" for 0.99999).
std::string format_percent(double share);
// "2.30x", "0.59x", "1,234.50x"; "<0.01x" for positive ratios that would print as 0.00x.
std::string format_ratio(double ratio);
// Requests or tokens per second: format_significant plus the unit ("4.41 req/s").
std::string format_rate(double per_second, const std::string& unit);

}  // namespace tidal::base
