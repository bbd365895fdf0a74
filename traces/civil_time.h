// Calendar timestamps ("2023-11-16 18:17:03.9799600") to integer nanoseconds since
// 1970-01-01 UTC, parsed by hand: no locale, no strptime.
#pragma once

#include <cstdint>
#include <string_view>

namespace tidal::traces {

// Accepts "YYYY-MM-DD HH:MM:SS" (or a 'T' between date and time), an optional fraction of
// 1 to 9 digits, and an optional zone "Z" or "+HH:MM" / "-HH:MM" (converted to UTC; none means
// UTC). Years 1970-2200 (so differences fit int64 ns). base::RowError naming `field` on anything
// else or an impossible date.
int64_t parse_civil_time_ns(std::string_view text, std::string_view field);

// Days from 1970-01-01 to the given proleptic Gregorian date (month 1-12, day 1-31).
int64_t days_since_epoch(int64_t year, int64_t month, int64_t day);

}  // namespace tidal::traces
