#include "sim/sample_set.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tidal::sim {
namespace {

TEST(SampleSet, NearestRankPercentilesAreSamples) {
  SampleSet s;
  for (int v : {15, 20, 35, 40, 50}) s.add(v);  // added unsorted below too
  // ceil(p/100 * 5): p30 -> 2nd, p40 -> 2nd, p50 -> 3rd, p100 -> 5th.
  EXPECT_EQ(s.percentile(5), 15);
  EXPECT_EQ(s.percentile(30), 20);
  EXPECT_EQ(s.percentile(40), 20);
  EXPECT_EQ(s.percentile(50), 35);
  EXPECT_EQ(s.percentile(100), 50);
}

TEST(SampleSet, SummaryOfUnsortedSamples) {
  SampleSet s;
  for (int i = 100; i >= 1; --i) s.add(i * 0.01);  // 0.01 .. 1.00, descending
  const LatencySummary sum = s.summarize();
  EXPECT_EQ(sum.count, 100);
  EXPECT_DOUBLE_EQ(sum.mean, 0.505);
  EXPECT_DOUBLE_EQ(sum.p50, 0.50);
  EXPECT_DOUBLE_EQ(sum.p90, 0.90);
  EXPECT_DOUBLE_EQ(sum.p99, 0.99);
  EXPECT_DOUBLE_EQ(sum.max, 1.00);
  EXPECT_TRUE(s.exact());
}

TEST(SampleSet, EmptySummaryIsZero) {
  SampleSet s;
  const LatencySummary sum = s.summarize();
  EXPECT_EQ(sum.count, 0);
  EXPECT_EQ(sum.p99, 0.0);
}

TEST(SampleSet, PastTheExactLimitPercentilesStayWithinBinError) {
  SampleSet s;
  const int64_t n = SampleSet::kExactLimit + 1000;
  // Values 1 us .. ~1 s spread evenly in rank.
  for (int64_t i = 0; i < n; ++i) s.add(1e-6 * (1.0 + static_cast<double>((i * 7919) % n)));
  EXPECT_FALSE(s.exact());
  EXPECT_EQ(s.count(), n);
  for (double p : {50.0, 90.0, 99.0}) {
    const double exact = 1e-6 * std::ceil(p / 100.0 * static_cast<double>(n));
    EXPECT_NEAR(s.percentile(p) / exact, 1.0, 5e-4) << "p" << p;
  }
  EXPECT_DOUBLE_EQ(s.summarize().max, 1e-6 * static_cast<double>(n));
}

}  // namespace
}  // namespace tidal::sim
