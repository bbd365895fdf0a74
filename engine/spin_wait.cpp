#include "engine/spin_wait.h"

#include <chrono>

namespace tidal::engine {

void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

int64_t spin_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void SpinBarrier::arrive_and_wait() {
  const uint32_t phase = phase_.load(std::memory_order_acquire);
  if (num_arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == num_threads_) {
    // Reset before the new phase is published: a thread that sees the phase sees the reset.
    num_arrived_.store(0, std::memory_order_relaxed);
    phase_.store(phase + 1, std::memory_order_release);
    phase_.notify_all();
    return;
  }
  auto passed = [&] { return phase_.load(std::memory_order_acquire) != phase; };
  if (spin_until(passed, kSpinBeforeBlockNs)) return;
  while (!passed()) phase_.wait(phase, std::memory_order_acquire);
}

}  // namespace tidal::engine
