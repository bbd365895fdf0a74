#include "sim/sample_set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

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

// Percentiles by selection (the first queries) and by sort (later ones) are the sorted
// samples' nearest ranks, whatever the order of the queries and with samples added between.
TEST(SampleSet, SelectedPercentilesEqualTheSortedSamples) {
  std::mt19937_64 rng(7);
  std::vector<double> values;
  SampleSet s;
  const auto add = [&](int n) {
    for (int i = 0; i < n; ++i) {
      const double v = static_cast<double>(rng() % 1000) * 1e-3;  // many ties
      values.push_back(v);
      s.add(v);
    }
  };
  const auto expect_percentile = [&](double p) {
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    const int64_t k = traces::nearest_rank_position(p, static_cast<int64_t>(sorted.size()));
    EXPECT_EQ(s.percentile(p), sorted[static_cast<size_t>(k - 1)]) << "p" << p;
  };
  add(5000);
  for (double p : {50.0, 90.0, 10.0}) expect_percentile(p);  // selections: ascending, then below
  add(3000);
  expect_percentile(99.0);  // the last selection, on samples added since the others
  // Past the selections: sorted.
  for (double p : {99.9, 1.0, 50.0, 75.0, 100.0, 0.01}) expect_percentile(p);
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

// The sketch against exact percentiles of a fixed-seed lognormal sample past the exact limit
// (median 50 ms, sigma 1.5: from microseconds to tens of seconds): every percentile within
// 2^-11 relative, the bound in sample_set.h.
TEST(SampleSet, SketchPercentilesWithinTheirBoundOnARandomSample) {
  std::mt19937_64 rng(20260101);
  const auto uniform = [&rng] {  // in (0, 1), 53 random bits
    return (static_cast<double>(rng() >> 11) + 0.5) * 0x1p-53;
  };
  const int64_t n = 1'500'000;
  std::vector<double> exact;
  exact.reserve(static_cast<size_t>(n));
  SampleSet s;
  for (int64_t i = 0; i < n; ++i) {
    const double normal =
        std::sqrt(-2.0 * std::log(uniform())) * std::cos(2.0 * std::numbers::pi * uniform());
    const double v = 0.05 * std::exp(1.5 * normal);
    exact.push_back(v);
    s.add(v);
  }
  ASSERT_FALSE(s.exact());
  std::sort(exact.begin(), exact.end());
  const double bound = 0x1p-11;
  double worst = 0.0;
  for (double p : {0.1, 1.0, 10.0, 25.0, 50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    const double want = exact[static_cast<size_t>(traces::nearest_rank_position(p, n) - 1)];
    const double error = std::abs(s.percentile(p) / want - 1.0);
    EXPECT_LE(error, bound) << "p" << p;
    worst = std::max(worst, error);
  }
  EXPECT_GT(worst, 0.0);  // the sketch is in use: not every percentile exact
  const LatencySummary sum = s.summarize();
  EXPECT_EQ(sum.count, n);
  EXPECT_EQ(sum.max, exact.back());  // exact in both modes
}

// At the limit the set is still exact; one more sample moves it into the sketch.
TEST(SampleSet, ExactUpToTheLimit) {
  SampleSet s;
  for (int64_t i = 1; i <= SampleSet::kExactLimit; ++i) s.add(1e-3 * static_cast<double>(i));
  EXPECT_TRUE(s.exact());
  EXPECT_EQ(s.percentile(50), 1e-3 * 500'000);
  s.add(1.0);
  EXPECT_FALSE(s.exact());
}

void expect_same_summary(SampleSet& a, SampleSet& b) {
  const LatencySummary x = a.summarize();
  const LatencySummary y = b.summarize();
  EXPECT_EQ(x.count, y.count);
  EXPECT_EQ(x.mean, y.mean);  // the same sum, bit for bit
  EXPECT_EQ(x.p50, y.p50);
  EXPECT_EQ(x.p90, y.p90);
  EXPECT_EQ(x.p99, y.p99);
  EXPECT_EQ(x.max, y.max);
  EXPECT_EQ(a.exact(), b.exact());
}

// add(value, count) is count add(value)s: exact, across the spill into the sketch, and in it.
TEST(SampleSet, RepeatedSamplesAreAddedAsOneByOne) {
  SampleSet one_by_one;
  SampleSet repeated;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> value(1e-4, 0.2);
  std::uniform_int_distribution<int64_t> count(0, 300);
  bool spilled = false;
  while (one_by_one.count() < SampleSet::kExactLimit + 200'000) {
    const double v = value(rng);
    const int64_t n = count(rng);
    for (int64_t i = 0; i < n; ++i) one_by_one.add(v);
    repeated.add(v, n);
    EXPECT_EQ(one_by_one.count(), repeated.count());
    EXPECT_EQ(one_by_one.exact(), repeated.exact());
    if (!spilled && one_by_one.count() > SampleSet::kExactLimit / 2) {
      expect_same_summary(one_by_one, repeated);  // exact, unsorted, selected
      spilled = true;
    }
  }
  EXPECT_FALSE(repeated.exact());
  expect_same_summary(one_by_one, repeated);
}

}  // namespace
}  // namespace tidal::sim
