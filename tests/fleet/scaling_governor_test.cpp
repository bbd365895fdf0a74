// ScalingGovernor: bounds, scale-up delay, scale-down window and delay.
#include "sim/fleet/scaling_governor.h"

#include <gtest/gtest.h>

namespace tidal::fleet {
namespace {

constexpr int64_t kS = 1'000'000'000;

GovernorLimits limits(int32_t min, int32_t max, double up_delay_s, double down_delay_s,
                      double down_window_s) {
  return GovernorLimits{min, max, static_cast<int64_t>(up_delay_s * kS),
                        static_cast<int64_t>(down_delay_s * kS),
                        static_cast<int64_t>(down_window_s * kS)};
}

TEST(ScalingGovernor, ScalesUpOnlyAfterTheDemandIsSustained) {
  ScalingGovernor governor(limits(0, 10, 30, 0, 0), 1);
  for (int64_t t = 0; t < 30; t += 5) EXPECT_EQ(governor.update(t * kS, 4), 1) << t;
  EXPECT_EQ(governor.update(30 * kS, 4), 4);
}

TEST(ScalingGovernor, ADipRestartsTheScaleUpDelay) {
  ScalingGovernor governor(limits(0, 10, 30, 0, 0), 1);
  for (int64_t t = 0; t <= 20; t += 5) governor.update(t * kS, 4);
  EXPECT_EQ(governor.update(25 * kS, 1), 1);
  for (int64_t t = 30; t < 60; t += 5) EXPECT_EQ(governor.update(t * kS, 4), 1) << t;
  EXPECT_EQ(governor.update(60 * kS, 4), 4);
}

TEST(ScalingGovernor, ScaleUpIsImmediateWithoutDelay) {
  ScalingGovernor governor(limits(0, 10, 0, 0, 300), 1);
  EXPECT_EQ(governor.update(0, 7), 7);
}

TEST(ScalingGovernor, ScaleUpGoesToTheSustainedLevel) {
  ScalingGovernor governor(limits(0, 20, 10, 0, 0), 2);
  governor.update(0, 6);
  governor.update(5 * kS, 9);
  EXPECT_EQ(governor.update(10 * kS, 9), 6);  // 6 held for 10 s, 9 only for 5 s
  EXPECT_EQ(governor.update(15 * kS, 9), 9);
}

TEST(ScalingGovernor, ScalesDownToThePeakOfTheWindow) {
  ScalingGovernor governor(limits(0, 10, 0, 0, 60), 5);
  for (int64_t t = 0; t < 60; t += 10) EXPECT_EQ(governor.update(t * kS, 2), 5) << t;
  EXPECT_EQ(governor.update(60 * kS, 2), 2);
  // A peak inside the window holds the count.
  ScalingGovernor peaky(limits(0, 10, 0, 0, 60), 2);
  peaky.update(0, 2);
  EXPECT_EQ(peaky.update(10 * kS, 6), 6);
  EXPECT_EQ(peaky.update(20 * kS, 3), 6);
  // The 6 held from 10 s until the next evaluation at 20 s: it leaves the window at 80 s.
  EXPECT_EQ(peaky.update(79 * kS, 3), 6);
  EXPECT_EQ(peaky.update(80 * kS, 3), 3);
}

TEST(ScalingGovernor, WaitsTheScaleDownDelayAfterAScaleUp) {
  ScalingGovernor governor(limits(0, 10, 0, 100, 0), 1);
  EXPECT_EQ(governor.update(0, 8), 8);
  for (int64_t t = 10; t < 100; t += 10) EXPECT_EQ(governor.update(t * kS, 2), 8) << t;
  EXPECT_EQ(governor.update(100 * kS, 2), 2);
}

TEST(ScalingGovernor, RespectsMinAndMax) {
  ScalingGovernor governor(limits(2, 6, 0, 0, 0), 0);
  EXPECT_EQ(governor.update(0, 0), 2);  // an initial count below min moves up at once
  EXPECT_EQ(governor.update(kS, 100), 6);
  EXPECT_EQ(governor.update(2 * kS, -5), 2);
  ScalingGovernor above(limits(0, 3, 60, 0, 600), 9);
  EXPECT_EQ(above.update(0, 9), 3);  // and one above max down at once
}

}  // namespace
}  // namespace tidal::fleet
