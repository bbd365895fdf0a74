#include "traces/civil_time.h"

#include <fmt/format.h>

#include "base/field_parse.h"
#include "base/row_error.h"

namespace tidal::traces {
namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;

bool is_leap_year(int64_t year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int64_t days_in_month(int64_t year, int64_t month) {
  constexpr int64_t kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap_year(year) ? 29 : kDays[month - 1];
}

// Leap years among 1..year (year >= 0).
int64_t leap_years_through(int64_t year) {
  return year / 4 - year / 100 + year / 400;
}

// Parses exactly `num_digits` decimal digits at text[pos]; -1 if they are not all digits.
int64_t read_digits(std::string_view text, size_t pos, size_t num_digits) {
  if (pos + num_digits > text.size()) return -1;
  int64_t value = 0;
  for (size_t i = pos; i < pos + num_digits; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

}  // namespace

int64_t days_since_epoch(int64_t year, int64_t month, int64_t day) {
  constexpr int64_t kDaysBeforeMonth[12] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
  int64_t days = 365 * (year - 1970) + (leap_years_through(year - 1) - leap_years_through(1969));
  days += kDaysBeforeMonth[month - 1] + (month > 2 && is_leap_year(year) ? 1 : 0);
  return days + day - 1;
}

int64_t parse_civil_time_ns(std::string_view text, std::string_view field) {
  text = base::trim_blanks(text);
  if (text.empty()) throw base::RowError(field, "missing value");
  auto fail = [&]() {
    throw base::RowError(field, "not a timestamp like '2023-11-16 18:17:03.9799600': " +
                                    base::quote_for_message(text));
  };
  // "YYYY-MM-DD HH:MM:SS" is 19 characters.
  if (text.size() < 19 || text[4] != '-' || text[7] != '-' ||
      (text[10] != ' ' && text[10] != 'T') || text[13] != ':' || text[16] != ':') {
    fail();
  }
  const int64_t year = read_digits(text, 0, 4);
  const int64_t month = read_digits(text, 5, 2);
  const int64_t day = read_digits(text, 8, 2);
  const int64_t hour = read_digits(text, 11, 2);
  const int64_t minute = read_digits(text, 14, 2);
  const int64_t second = read_digits(text, 17, 2);
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) fail();
  // 1970-2200 keeps every difference of two times within int64 nanoseconds.
  if (year < 1970 || year > 2200) {
    throw base::RowError(field, "year outside 1970-2200: " + base::quote_for_message(text));
  }
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || hour > 23 ||
      minute > 59 || second > 59) {
    throw base::RowError(field, "impossible date or time: " + base::quote_for_message(text));
  }
  size_t pos = 19;
  int64_t fraction_ns = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    size_t num_digits = 0;
    int64_t scale = kNsPerSecond;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (++num_digits > 9) fail();
      scale /= 10;
      fraction_ns += (text[pos] - '0') * scale;
      ++pos;
    }
    if (num_digits == 0) fail();
  }
  int64_t zone_offset_s = 0;
  if (pos < text.size()) {
    if (text[pos] == 'Z' && pos + 1 == text.size()) {
      pos = text.size();
    } else if ((text[pos] == '+' || text[pos] == '-') && pos + 6 == text.size() &&
               text[pos + 3] == ':') {
      const int64_t zone_hours = read_digits(text, pos + 1, 2);
      const int64_t zone_minutes = read_digits(text, pos + 4, 2);
      if (zone_hours < 0 || zone_minutes < 0 || zone_hours > 23 || zone_minutes > 59) fail();
      zone_offset_s = (text[pos] == '+' ? 1 : -1) * (zone_hours * 3600 + zone_minutes * 60);
    } else {
      fail();
    }
  }
  const int64_t seconds = days_since_epoch(year, month, day) * 86400 + hour * 3600 + minute * 60 +
                          second - zone_offset_s;
  return seconds * kNsPerSecond + fraction_ns;
}

}  // namespace tidal::traces
