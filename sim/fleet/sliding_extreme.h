// The largest (or smallest) value a step function took over a trailing time window, in O(1)
// amortized time per sample. Samples (time, value) define a step function: each value holds
// from its time until the next sample's time. query(now, window) answers the extreme over
// [now - window, now]. Used by the autoscalers' scale-up delay (sustained minimum) and
// scale-down window (maximum desired count).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <stdexcept>

namespace tidal::fleet {

// `Prefer(a, b)` is true when a is at least as extreme as b: std::greater_equal for a maximum,
// std::less_equal for a minimum.
template <typename Prefer>
class SlidingExtreme {
 public:
  // Sample times never decrease. A sample at the same time as the previous one ends that one
  // after zero time; it still counts for windows that reach past that instant.
  void push(int64_t time_ns, int64_t value) {
    if (!samples_.empty() && time_ns < last_time_ns_) {
      throw std::logic_error("SlidingExtreme::push: time went backwards");
    }
    last_time_ns_ = time_ns;
    // The newest sample ends where this one starts. Samples it dominates can never be the
    // answer again: they are older and not more extreme.
    if (!samples_.empty()) samples_.back().end_ns = time_ns;
    while (!samples_.empty() && Prefer{}(value, samples_.back().value)) samples_.pop_back();
    samples_.push_back(Sample{time_ns, kOpen, value});
  }

  // The extreme over [now_ns - window_ns, now_ns]; at least one sample must exist, now_ns must
  // not precede the last sample, and the window start (now_ns - window_ns) must not decrease
  // from one query to the next (a fixed window does that): what left the window is forgotten.
  int64_t query(int64_t now_ns, int64_t window_ns) {
    const int64_t window_start = now_ns - window_ns;
    // A sample that ended at or before the window start no longer counts (the newest sample
    // never ends, so the deque never empties here).
    while (samples_.front().end_ns <= window_start) samples_.pop_front();
    return samples_.front().value;
  }

 private:
  static constexpr int64_t kOpen = std::numeric_limits<int64_t>::max();
  struct Sample {
    int64_t start_ns;
    int64_t end_ns;  // time of the next sample; kOpen for the newest
    int64_t value;
  };
  std::deque<Sample> samples_;  // [num_kept] start times increasing, values strictly monotone
  int64_t last_time_ns_ = 0;
};

using SlidingMax = SlidingExtreme<std::greater_equal<int64_t>>;
using SlidingMin = SlidingExtreme<std::less_equal<int64_t>>;

}  // namespace tidal::fleet
