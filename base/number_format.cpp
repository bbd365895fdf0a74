#include "base/number_format.h"

#include <cmath>

#include <fmt/format.h>

namespace tidal::base {
namespace {

// Inserts ',' every three digits into the integer part of a plain decimal string.
std::string group_thousands(const std::string& text) {
  size_t digits_begin = (!text.empty() && text[0] == '-') ? 1 : 0;
  size_t digits_end = text.find('.');
  if (digits_end == std::string::npos) digits_end = text.size();
  std::string out = text.substr(0, digits_begin);
  const size_t num_digits = digits_end - digits_begin;
  for (size_t i = 0; i < num_digits; ++i) {
    if (i > 0 && (num_digits - i) % 3 == 0) out.push_back(',');
    out.push_back(text[digits_begin + i]);
  }
  out.append(text, digits_end, std::string::npos);
  return out;
}

// Decimals that show three significant digits of `value`.
int significant_decimals(double value) {
  const double magnitude = std::fabs(value);
  if (magnitude == 0.0 || magnitude >= 100.0) return 0;
  const int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
  return std::max(0, 2 - exponent);
}

std::string fixed(double value, int decimals) {
  std::string text = fmt::format("{:.{}f}", value, decimals);
  if (text.starts_with("-") && text.find_first_not_of("0.", 1) == std::string::npos) {
    text.erase(0, 1);  // no "-0.00"
  }
  return text;
}

}  // namespace

std::string format_count(int64_t value) {
  return group_thousands(fmt::format("{}", value));
}

std::string format_number(double value, int decimals) {
  return group_thousands(fixed(value, decimals));
}

std::string format_significant(double value) {
  // Rounding can add a digit (9.996 -> 10.0): decide the decimals on the rounded value.
  int decimals = significant_decimals(value);
  const double rounded = std::stod(fixed(value, decimals));
  decimals = std::min(decimals, significant_decimals(rounded));
  return format_number(value, decimals);
}

std::string format_latency(double seconds) {
  if (std::fabs(seconds) < 1.0) {
    const std::string ms = format_significant(seconds * 1e3);
    if (ms != "1,000") return ms + " ms";
  }
  return format_significant(seconds) + " s";
}

std::string format_dollars(double dollars) {
  const std::string sign = dollars < 0 ? "-" : "";
  const double magnitude = std::fabs(dollars);
  if (magnitude >= 1.0 || magnitude == 0.0) return sign + "$" + format_number(magnitude, 2);
  return sign + "$" + format_significant(magnitude);
}

std::string format_percent(double share) {
  const double percent = share * 100.0;
  if (percent < 99.0) return format_number(percent, 1) + "%";
  std::string text = format_number(percent, 2);
  if (text == "100.00" && share < 1.0) text = "99.99";
  return text + "%";
}

std::string format_ratio(double ratio) {
  if (ratio > 0.0 && ratio < 0.005) return "<0.01x";
  return format_number(ratio, 2) + "x";
}

std::string format_rate(double per_second, const std::string& unit) {
  return format_significant(per_second) + " " + unit;
}

}  // namespace tidal::base
