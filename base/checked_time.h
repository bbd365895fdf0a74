// Seconds (the unit of files and the CLI) to the int64 nanoseconds of the event loops, checked.
// Every time a run computes stays within [0, kMaxSimulatedS], so the sum of two of them cannot
// overflow int64 (9.2e9 s); the conversion below refuses what would leave that range.
#pragma once

#include <cstdint>
#include <string_view>

namespace tidal::base {

// The latest time a simulated or replayed run may reach, and the longest duration it may
// compute: about 127 years. Arrivals stop at kMaxArrivalS (base/limits.h), well below it.
inline constexpr double kMaxSimulatedS = 4e9;
inline constexpr int64_t kMaxSimulatedNs = 4'000'000'000'000'000'000;

// `seconds` rounded to the nearest nanosecond. InputError "<what>: <seconds> s is outside the
// clock's range of 0 to 4e9 s" when it is negative, not finite or above kMaxSimulatedS.
int64_t checked_seconds_to_ns(double seconds, std::string_view what);

}  // namespace tidal::base
