#include "ui/plot/nice_ticks.h"

#include <cmath>

#include <gtest/gtest.h>

namespace tidal::ui::plot {
namespace {

TEST(NiceTicks, StepIsOneTwoOrFiveTimesAPowerOfTen) {
  EXPECT_DOUBLE_EQ(nice_step(100.0, 5), 20.0);
  EXPECT_DOUBLE_EQ(nice_step(97.0, 5), 20.0);
  EXPECT_DOUBLE_EQ(nice_step(101.0, 5), 50.0);
  EXPECT_DOUBLE_EQ(nice_step(3600.0, 8), 500.0);
  EXPECT_DOUBLE_EQ(nice_step(0.3, 3), 0.1);
  EXPECT_DOUBLE_EQ(nice_step(0.074, 4), 0.02);
  EXPECT_DOUBLE_EQ(nice_step(7.0, 1), 10.0);
}

TEST(NiceTicks, ValuesAreMultiplesOfTheStepInsideTheRange) {
  const Ticks t = nice_ticks(0.0, 97.0, 5);
  EXPECT_DOUBLE_EQ(t.step, 20.0);
  EXPECT_EQ(t.values, (std::vector<double>{0.0, 20.0, 40.0, 60.0, 80.0}));

  const Ticks small = nice_ticks(0.013, 0.087, 4);
  ASSERT_EQ(small.values.size(), 4u);
  EXPECT_DOUBLE_EQ(small.values[0], 0.02);
  EXPECT_DOUBLE_EQ(small.values[3], 0.08);
}

TEST(NiceTicks, NegativeRangesAndZeroHaveNoNegativeZero) {
  const Ticks t = nice_ticks(-25.0, 25.0, 5);
  EXPECT_EQ(t.values, (std::vector<double>{-20.0, -10.0, 0.0, 10.0, 20.0}));
  EXPECT_FALSE(std::signbit(t.values[2]));
}

TEST(NiceTicks, EmptyRangeIsWidened) {
  const Ticks t = nice_ticks(5.0, 5.0, 4);
  EXPECT_EQ(t.values, (std::vector<double>{4.0, 4.5, 5.0, 5.5, 6.0}));
  const Ticks reversed = nice_ticks(10.0, 0.0, 5);
  EXPECT_EQ(reversed.values.front(), 0.0);
  EXPECT_EQ(reversed.values.back(), 10.0);
}

TEST(NiceTicks, DecimalsShowEveryStep) {
  EXPECT_EQ(tick_decimals(500.0), 0);
  EXPECT_EQ(tick_decimals(1.0), 0);
  EXPECT_EQ(tick_decimals(0.5), 1);
  EXPECT_EQ(tick_decimals(0.1), 1);
  EXPECT_EQ(tick_decimals(0.05), 2);
  EXPECT_EQ(tick_decimals(0.002), 3);
}

}  // namespace
}  // namespace tidal::ui::plot
