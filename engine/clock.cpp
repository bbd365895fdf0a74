#include "engine/clock.h"

#include <thread>

namespace tidal::engine {

int64_t SteadyClock::now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              start_)
      .count();
}

void SteadyClock::sleep_until(int64_t deadline_ns) {
  std::this_thread::sleep_until(start_ + std::chrono::nanoseconds(deadline_ns));
}

}  // namespace tidal::engine
