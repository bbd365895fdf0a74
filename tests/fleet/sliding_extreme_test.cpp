// SlidingExtreme: window maximum / minimum of a step function against a brute-force answer.
#include "sim/fleet/sliding_extreme.h"

#include <algorithm>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace tidal::fleet {
namespace {

TEST(SlidingExtreme, StepFunctionSemantics) {
  SlidingMax max;
  max.push(0, 5);
  max.push(10, 3);
  max.push(20, 4);
  // Queries forget what falls out of their window, so their window start must not move back:
  // widest window first.
  EXPECT_EQ(max.query(20, 11), 5);  // [9, 20] still sees the 5
  EXPECT_EQ(max.query(20, 10), 4);  // [10, 20]: the 5 ended at 10
  EXPECT_EQ(max.query(20, 5), 4);   // [15, 20]: 3 then 4
  EXPECT_EQ(max.query(20, 0), 4);
  SlidingMin min;
  min.push(0, 5);
  min.push(10, 3);
  min.push(20, 4);
  EXPECT_EQ(min.query(25, 6), 3);
  EXPECT_EQ(min.query(25, 0), 4);
}

// Brute force: values in effect over [now - window, now] of a step function.
int64_t brute(const std::vector<std::pair<int64_t, int64_t>>& samples, int64_t now, int64_t window,
              bool want_max) {
  int64_t best = want_max ? INT64_MIN : INT64_MAX;
  for (size_t i = 0; i < samples.size(); ++i) {
    const int64_t end = i + 1 < samples.size() ? samples[i + 1].first : INT64_MAX;
    if (end <= now - window) continue;
    best = want_max ? std::max(best, samples[i].second) : std::min(best, samples[i].second);
  }
  return best;
}

TEST(SlidingExtreme, MatchesBruteForceOnRandomSamples) {
  std::mt19937_64 rng(7);
  SlidingMax max;
  SlidingMin min;
  std::vector<std::pair<int64_t, int64_t>> samples;  // [num_samples] (time, value)
  int64_t now = 0;
  const int64_t window = 50;
  for (int i = 0; i < 5000; ++i) {
    now += static_cast<int64_t>(rng() % 12);  // repeats of the same time included
    const auto value = static_cast<int64_t>(rng() % 20);
    samples.emplace_back(now, value);
    max.push(now, value);
    min.push(now, value);
    ASSERT_EQ(max.query(now, window), brute(samples, now, window, true)) << i;
    ASSERT_EQ(min.query(now, window), brute(samples, now, window, false)) << i;
  }
}

}  // namespace
}  // namespace tidal::fleet
