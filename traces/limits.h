// Bounds every reader enforces, so that downstream int64 arithmetic (nanosecond clocks, token
// sums) cannot overflow on hostile input.
#pragma once

#include <cstdint>

namespace tidal::traces {

inline constexpr double kMaxArrivalS = 1e9;              // about 31 years after time 0
inline constexpr int64_t kMaxTokens = int64_t{1} << 40;  // per request, prompt or output

}  // namespace tidal::traces

namespace tidal::traces {

inline constexpr int64_t kMaxGeneratedRequests = 50'000'000;  // per generated workload

}  // namespace tidal::traces
