#include "base/checked_time.h"

#include <cmath>

#include <fmt/format.h>

#include "base/input_error.h"

namespace tidal::base {

int64_t checked_seconds_to_ns(double seconds, std::string_view what) {
  if (!(seconds >= 0.0 && seconds <= kMaxSimulatedS)) {
    throw InputError(fmt::format("{}: {:g} s is outside the clock's range of 0 to {:g} s", what,
                                 seconds, kMaxSimulatedS));
  }
  return std::llround(seconds * 1e9);
}

}  // namespace tidal::base
