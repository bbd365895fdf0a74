// Busy waiting for the engine's short waits. A thread that blocks in the kernel (futex, timed
// sleep) is woken tens of microseconds late on a loaded or virtualized host, and how late varies
// from run to run; the engine's waits inside and between steps (tensor-parallel ranks meeting,
// a rank's next forward, a request's arrival) are short, so they spin first and block only when
// the wait runs long. This keeps step times what the operators cost, which is what the profiler
// measures and the simulator charges.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

namespace tidal::engine {

// How long the engine's waits spin before blocking (nanoseconds).
inline constexpr int64_t kSpinBeforeBlockNs = 2'000'000;

// One pause of a spin loop (the CPU's spin-wait hint where there is one).
void spin_pause();

// Monotonic nanoseconds (steady_clock), for spin deadlines.
int64_t spin_clock_ns();

// Calls done() until it returns true or max_ns have passed; returns done()'s last answer. The
// first kPauseSpins checks pause between them; later ones yield the CPU, so that a thread this
// one waits for can run when there are fewer cores than busy threads.
inline constexpr int kPauseSpins = 4096;
template <typename Done>
bool spin_until(Done&& done, int64_t max_ns) {
  const int64_t deadline_ns = spin_clock_ns() + max_ns;
  for (int i = 1;; ++i) {
    if (done()) return true;
    if (i < kPauseSpins) {
      spin_pause();
    } else {
      std::this_thread::yield();
    }
    if (i % 64 == 0 && spin_clock_ns() >= deadline_ns) return done();
  }
}

// A reusable barrier of `num_threads` threads that spins up to kSpinBeforeBlockNs before
// blocking on the phase word (std::atomic wait).
class SpinBarrier {
 public:
  explicit SpinBarrier(int num_threads) : num_threads_(num_threads) {}
  void arrive_and_wait();

 private:
  const int num_threads_;
  std::atomic<int> num_arrived_{0};
  std::atomic<uint32_t> phase_{0};  // bumped by the last arrival of each round
};

}  // namespace tidal::engine
