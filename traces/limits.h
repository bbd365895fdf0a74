// Bounds of the trace generators, beside base/limits.h's bounds on every request.
#pragma once

#include <cstdint>

#include "base/limits.h"

namespace tidal::traces {

inline constexpr int64_t kMaxGeneratedRequests = 50'000'000;  // per generated workload

}  // namespace tidal::traces
