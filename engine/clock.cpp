#include "engine/clock.h"

#include <thread>

#include "engine/spin_wait.h"

namespace tidal::engine {

int64_t SteadyClock::now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              start_)
      .count();
}

void SteadyClock::sleep_until(int64_t deadline_ns) {
  // A timed sleep ends tens to hundreds of microseconds late (timer slack, wake-up latency), and
  // a request handed over late starts its first step late; so sleep until shortly before the
  // deadline and spin the rest.
  constexpr int64_t kSpinNs = 300'000;
  if (deadline_ns - now_ns() > kSpinNs) {
    std::this_thread::sleep_until(start_ + std::chrono::nanoseconds(deadline_ns - kSpinNs));
  }
  while (now_ns() < deadline_ns) spin_pause();
}

}  // namespace tidal::engine
