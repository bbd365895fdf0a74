// The engine's spinning waits: the barrier keeps threads in lock step over many rounds (also
// after blocking), spin_until gives up at its deadline, and SteadyClock::sleep_until never
// returns early.
#include "engine/spin_wait.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "engine/clock.h"

namespace tidal::engine {
namespace {

TEST(SpinWait, BarrierKeepsThreadsInLockStep) {
  constexpr int kThreads = 3;
  constexpr int kRounds = 2000;
  SpinBarrier barrier(kThreads);
  std::vector<int> round_of(kThreads, 0);  // [kThreads] rounds each thread has finished
  std::atomic<bool> out_of_step{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        round_of[static_cast<size_t>(t)] = r;
        barrier.arrive_and_wait();
        // Between the two barriers every thread has written round r and none has gone on.
        for (int u = 0; u < kThreads; ++u) {
          if (round_of[static_cast<size_t>(u)] != r) out_of_step = true;
        }
        barrier.arrive_and_wait();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_FALSE(out_of_step);
}

TEST(SpinWait, BarrierBlocksWhenAPeerIsLate) {
  SpinBarrier barrier(2);
  std::atomic<int> passed{0};
  std::thread early([&] {
    barrier.arrive_and_wait();
    ++passed;
  });
  // Longer than the spin: the early thread ends up blocked on the phase word.
  std::this_thread::sleep_for(std::chrono::nanoseconds(2 * kSpinBeforeBlockNs));
  EXPECT_EQ(passed.load(), 0);
  barrier.arrive_and_wait();
  early.join();
  EXPECT_EQ(passed.load(), 1);
}

TEST(SpinWait, SpinUntilAnswersTheConditionAtItsDeadline) {
  int calls = 0;
  EXPECT_TRUE(spin_until([&] { return ++calls == 3; }, kSpinBeforeBlockNs));
  EXPECT_EQ(calls, 3);
  EXPECT_FALSE(spin_until([] { return false; }, 1000));
}

TEST(SpinWait, SleepUntilNeverReturnsEarly) {
  SteadyClock clock;
  for (int64_t ahead_ns : {0, 50'000, 1'000'000}) {
    const int64_t deadline = clock.now_ns() + ahead_ns;
    clock.sleep_until(deadline);
    EXPECT_GE(clock.now_ns(), deadline) << ahead_ns;
  }
}

}  // namespace
}  // namespace tidal::engine
