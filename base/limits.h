// Bounds every reader enforces, so that downstream int64 arithmetic (nanosecond clocks, token
// sums) cannot overflow on hostile input.
#pragma once

#include <cstdint>

namespace tidal::base {

inline constexpr double kMaxArrivalS = 1e9;                 // about 31 years after time 0
inline constexpr int64_t kMaxTokens = int64_t{1} << 40;     // per request, prompt or output
inline constexpr int64_t kMaxWireBytes = int64_t{1} << 50;  // per request, request or response

}  // namespace tidal::base
