// Number formatting, axis scales and tick labels, comparison verdicts.
#include <gtest/gtest.h>

#include "reports/axis_scale.h"
#include "reports/format.h"
#include "reports/verdict.h"

namespace tidal::reports {
namespace {

TEST(Format, CountsAndNumbersHaveThousandsSeparators) {
  EXPECT_EQ(format_count(0), "0");
  EXPECT_EQ(format_count(999), "999");
  EXPECT_EQ(format_count(15905), "15,905");
  EXPECT_EQ(format_count(-1234567), "-1,234,567");
  EXPECT_EQ(format_number(5685.776, 1), "5,685.8");
  EXPECT_EQ(format_number(-0.0001, 2), "0.00");
  EXPECT_EQ(format_number(1234567.891, 2), "1,234,567.89");
}

TEST(Format, SignificantDigits) {
  EXPECT_EQ(format_significant(0.004411), "0.00441");
  EXPECT_EQ(format_significant(4.4119), "4.41");
  EXPECT_EQ(format_significant(5685.8), "5,686");
  EXPECT_EQ(format_significant(9.996), "10.0");
  EXPECT_EQ(format_significant(0.0), "0");
}

TEST(Format, LatenciesInMillisecondsBelowOneSecond) {
  EXPECT_EQ(format_latency(0.0249), "24.9 ms");
  EXPECT_EQ(format_latency(0.118975617), "119 ms");
  EXPECT_EQ(format_latency(0.000512), "0.512 ms");
  EXPECT_EQ(format_latency(0.9996), "1.00 s");
  EXPECT_EQ(format_latency(1.6389), "1.64 s");
  EXPECT_EQ(format_latency(12.34), "12.3 s");
  EXPECT_EQ(format_latency(1800.0), "1,800 s");
}

TEST(Format, DollarsPercentsRatios) {
  EXPECT_EQ(format_dollars(17.023665), "$17.02");
  EXPECT_EQ(format_dollars(1234.567), "$1,234.57");
  EXPECT_EQ(format_dollars(0.0472), "$0.0472");
  EXPECT_EQ(format_dollars(0.0), "$0.00");
  EXPECT_EQ(format_dollars(-3.5), "-$3.50");
  EXPECT_EQ(format_percent(0.7113), "71.1%");
  EXPECT_EQ(format_percent(1.0), "100.00%");
  EXPECT_EQ(format_percent(0.99999), "99.99%");
  EXPECT_EQ(format_percent(0.995), "99.50%");
  EXPECT_EQ(format_ratio(2.3), "2.30x");
  EXPECT_EQ(format_ratio(0.0000059), "<0.01x");
  EXPECT_EQ(format_ratio(1234.5), "1,234.50x");
  EXPECT_EQ(format_rate(4.4119, "req/s"), "4.41 req/s");
}

TEST(AxisScale, LinearTicksAreRoundAndCoverTheData) {
  const AxisScale s = linear_scale(0.0, 37.0);
  EXPECT_EQ(s.ticks, (std::vector<double>{0, 10, 20, 30, 40}));
  EXPECT_DOUBLE_EQ(s.min, 0.0);
  EXPECT_DOUBLE_EQ(s.max, 40.0);
  EXPECT_DOUBLE_EQ(s.fraction(20.0), 0.5);
  const AxisScale flat = linear_scale(4.0, 4.0);
  EXPECT_LT(flat.min, 4.0);
  EXPECT_GT(flat.max, 4.0);
}

TEST(AxisScale, LogTicksArePowersOfTen) {
  const AxisScale s = log_scale(0.0123, 4.5);
  EXPECT_TRUE(s.log);
  EXPECT_DOUBLE_EQ(s.min, 0.01);
  EXPECT_DOUBLE_EQ(s.max, 10.0);
  ASSERT_EQ(s.ticks.size(), 4u);  // three decades: no 2 and 5 ticks
  EXPECT_DOUBLE_EQ(s.fraction(0.1), 1.0 / 3.0);
  const AxisScale fine = log_scale(1.5, 80.0);
  EXPECT_EQ(fine.ticks.size(), 7u);  // 1 2 5 10 20 50 100
}

TEST(AxisScale, TickLabelsUseTheAxisUnit) {
  EXPECT_EQ(tick_label(0.002, 0.002, AxisUnit::seconds), "2 ms");
  EXPECT_EQ(tick_label(0.00001, 0.00001, AxisUnit::seconds), "10 µs");
  EXPECT_EQ(tick_label(20.0, 10.0, AxisUnit::seconds), "20 s");
  EXPECT_EQ(tick_label(0.5, 0.1, AxisUnit::percent), "50%");
  EXPECT_EQ(tick_label(15000.0, 5000.0, AxisUnit::number), "15k");
  EXPECT_EQ(tick_label(2.5e6, 5e5, AxisUnit::number), "2.5M");
  EXPECT_EQ(tick_label(1.5, 0.5, AxisUnit::dollars), "$1.5");
}

TEST(Verdict, LatencyCutsAndRaises) {
  const MetricValue p99{"p99 TTFT", "", MetricKind::latency, format_latency};
  EXPECT_EQ(verdict(p99, "A", 0.119, "B", 0.0702),
            "B cuts p99 TTFT by 41% vs A (119 ms -> 70.2 ms)");
  EXPECT_EQ(verdict(p99, "A", 0.1, "B", 0.23), "B raises p99 TTFT 2.30x vs A (100 ms -> 230 ms)");
  EXPECT_EQ(verdict(p99, "A", 56743.0, "B", 0.991),
            "B cuts p99 TTFT 57,258x vs A (56,743 s -> 991 ms)");
  EXPECT_EQ(verdict(p99, "A", 0.1, "B", 0.1002), "B matches A on p99 TTFT (100 ms -> 100 ms)");
}

TEST(Verdict, CostsMoreOrLess) {
  const MetricValue unit{"$ / 1M output tokens", "per 1M output tokens", MetricKind::cost,
                         format_dollars};
  EXPECT_EQ(verdict(unit, "A", 4.0, "B", 9.2),
            "B costs 2.30x more per 1M output tokens vs A ($4.00 -> $9.20)");
  EXPECT_EQ(verdict(unit, "A", 4.0, "B", 0.3),
            "B costs 13.3x less per 1M output tokens vs A ($4.00 -> $0.300)");
  EXPECT_EQ(verdict(unit, "A", 4.0, "B", 2.36),
            "B costs 41% less per 1M output tokens vs A ($4.00 -> $2.36)");
  EXPECT_EQ(verdict(unit, "A", 4.0, "B", 5.0),
            "B costs 25% more per 1M output tokens vs A ($4.00 -> $5.00)");
}

TEST(Verdict, SharesCompareInPoints) {
  const MetricValue att{"SLO attainment", "", MetricKind::share, format_percent};
  EXPECT_EQ(verdict(att, "A", 0.951, "B", 0.983),
            "B raises SLO attainment by 3.2 points vs A (95.1% -> 98.3%)");
  EXPECT_EQ(verdict(att, "A", std::nullopt, "B", 0.9),
            "SLO attainment: no SLO attainment to compare (A n/a, B 90.0%)");
  EXPECT_FALSE(ratio_of(0.0, 1.0).has_value());
  EXPECT_DOUBLE_EQ(*ratio_of(2.0, 3.0), 1.5);
}

}  // namespace
}  // namespace tidal::reports
