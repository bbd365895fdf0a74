// Where the engine reads the time: nanoseconds on a monotonic clock.
#pragma once

#include <chrono>
#include <cstdint>

namespace tidal::engine {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t now_ns() = 0;  // never decreases
  // Blocks until now_ns() >= deadline_ns (returns at once when it already is).
  virtual void sleep_until(int64_t deadline_ns) = 0;
};

// Wall time since construction (std::chrono::steady_clock). sleep_until sleeps to shortly before
// the deadline and spins the rest, so it returns within about a microsecond of it.
class SteadyClock final : public Clock {
 public:
  SteadyClock() : start_(std::chrono::steady_clock::now()) {}
  int64_t now_ns() override;
  void sleep_until(int64_t deadline_ns) override;

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace tidal::engine
