#include "ui/plot/units.h"

#include <cmath>

#include <gtest/gtest.h>

namespace tidal::ui::plot {
namespace {

TEST(Units, LatenciesUseMillisecondsBelowOneSecond) {
  EXPECT_EQ(format_value(0.85, Unit::latency), "850 ms");
  EXPECT_EQ(format_value(0.0123, Unit::latency), "12.3 ms");
  EXPECT_EQ(format_value(1.234, Unit::latency), "1.23 s");
  EXPECT_EQ(format_value(1234.0, Unit::latency), "1,234 s");
}

TEST(Units, SharesDollarsRatesAndCounts) {
  EXPECT_EQ(format_value(0.452, Unit::share), "45.2%");
  EXPECT_EQ(format_value(12.4, Unit::dollars), "$12.40");
  EXPECT_EQ(format_value(1234.6, Unit::dollars), "$1,235");
  EXPECT_EQ(format_value(0.1234, Unit::dollars_per_1m), "$0.123 /1M tok");
  EXPECT_EQ(format_value(12.5, Unit::requests_per_s), "12.5 req/s");
  EXPECT_EQ(format_value(1500.0, Unit::tokens_per_s), "1,500 tok/s");
  EXPECT_EQ(format_value(12345.0, Unit::count), "12,345");
  EXPECT_EQ(format_value(2.5, Unit::count), "2.50");
  EXPECT_EQ(format_value(std::nan(""), Unit::latency), "-");
}

TEST(Units, RunTimeAxesSwitchToMinutesAndHours) {
  EXPECT_EQ(display_scale(Unit::run_time, 300.0).suffix, "s");
  EXPECT_EQ(display_scale(Unit::run_time, 3600.0).suffix, "min");
  EXPECT_DOUBLE_EQ(display_scale(Unit::run_time, 3600.0).factor, 1.0 / 60.0);
  EXPECT_EQ(display_scale(Unit::run_time, 6.0 * 3600.0).suffix, "h");
  EXPECT_EQ(axis_caption(Unit::run_time, display_scale(Unit::run_time, 3600.0)), "time (min)");
  EXPECT_EQ(axis_caption(Unit::latency, display_scale(Unit::latency, 0.2)), "latency (ms)");
  EXPECT_EQ(axis_caption(Unit::share, display_scale(Unit::share, 1.0)), "%");
}

TEST(Units, ThousandsSeparators) {
  EXPECT_EQ(group_thousands(1234567.891, 2), "1,234,567.89");
  EXPECT_EQ(group_thousands(-1234.0, 0), "-1,234");
  EXPECT_EQ(group_thousands(999.0, 0), "999");
  EXPECT_EQ(group_thousands(-0.0001, 2), "0.00");
  EXPECT_EQ(format_tick(2500.0, 0), "2,500");
}

}  // namespace
}  // namespace tidal::ui::plot
