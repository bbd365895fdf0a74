// Head-of-line blocking: step-stretch attribution and peak-to-mean ratios.
#include "sim/fleet/hol_blocking.h"

#include <numeric>

#include <gtest/gtest.h>

namespace tidal::fleet {
namespace {

TEST(HolBlocking, LongPrefillStretchGoesToEveryOtherSequence) {
  // Three decodes, one 28,000-token prefill and one 4,000-token prefill (threshold 2,048).
  const std::vector<int64_t> tokens{1, 28'000, 1, 4'000, 1};
  const StepStretch stretch = attribute_step_stretch(tokens, 2048, 0.900, 0.030);
  EXPECT_DOUBLE_EQ(stretch.stretch_s, 0.870);
  EXPECT_EQ(stretch.delay_s, (std::vector<double>{0.870, 0.0, 0.870, 0.0, 0.870}));
  EXPECT_DOUBLE_EQ(stretch.caused_s[1], 0.870 * 3 * 28'000 / 32'000);
  EXPECT_DOUBLE_EQ(stretch.caused_s[3], 0.870 * 3 * 4'000 / 32'000);
  EXPECT_DOUBLE_EQ(stretch.caused_s[0], 0.0);
  const double delayed = std::accumulate(stretch.delay_s.begin(), stretch.delay_s.end(), 0.0);
  const double caused = std::accumulate(stretch.caused_s.begin(), stretch.caused_s.end(), 0.0);
  EXPECT_NEAR(caused, delayed, 1e-12);
}

TEST(HolBlocking, NoStretchWithoutBothKinds) {
  const std::vector<int64_t> decodes{1, 1, 512};
  EXPECT_DOUBLE_EQ(attribute_step_stretch(decodes, 2048, 0.05, 0.05).stretch_s, 0.0);
  const std::vector<int64_t> prefills{3000, 5000};
  const StepStretch alone = attribute_step_stretch(prefills, 2048, 0.5, 0.0);
  EXPECT_DOUBLE_EQ(alone.stretch_s, 0.0);
  EXPECT_EQ(alone.caused_s, (std::vector<double>{0.0, 0.0}));
  // A model that predicts a faster step with the prefills is clamped at no stretch.
  const std::vector<int64_t> mixed{1, 4096};
  EXPECT_DOUBLE_EQ(attribute_step_stretch(mixed, 2048, 0.02, 0.03).stretch_s, 0.0);
  EXPECT_TRUE(is_long_prefill(2048, 2048));
  EXPECT_FALSE(is_long_prefill(2047, 2048));
}

TEST(HolBlocking, PeakToMeanOfBinnedArrivals) {
  // 10 s, 1 s bins: 5 arrivals in second 3, one each in seconds 0 and 9, one outside.
  const std::vector<double> arrivals{0.5, 3.0, 3.1, 3.2, 3.3, 3.9, 9.99, 10.0, -1.0};
  const PeakToMean demand = peak_to_mean(arrivals, 1.0, 10.0);
  EXPECT_EQ(demand.num_arrivals, 7);
  EXPECT_DOUBLE_EQ(demand.peak_per_s, 5.0);
  EXPECT_DOUBLE_EQ(demand.mean_per_s, 0.7);
  EXPECT_DOUBLE_EQ(demand.ratio, 5.0 / 0.7);
  EXPECT_DOUBLE_EQ(peak_to_mean({}, 1.0, 10.0).ratio, 0.0);
}

TEST(HolBlocking, AggregatingOffsetBurstsLowersThePeakToMean) {
  // Two tenants that burst at different times: each alone is peaky, together flatter.
  std::vector<Request> requests;
  for (int i = 0; i < 10; ++i) {
    Request a;
    a.tenant = "docs";
    a.arrival_s = 1.0 + 0.01 * i;
    requests.push_back(a);
    Request b;
    b.tenant = "news";
    b.arrival_s = 6.0 + 0.01 * i;
    requests.push_back(b);
  }
  const DemandPeaks peaks = tenant_peak_to_mean(requests, 1.0, 10.0);
  ASSERT_EQ(peaks.tenants.size(), 2u);
  EXPECT_EQ(peaks.tenants[0].tenant, "docs");
  EXPECT_EQ(peaks.tenants[1].tenant, "news");
  EXPECT_DOUBLE_EQ(peaks.tenants[0].demand.ratio, 10.0);
  EXPECT_DOUBLE_EQ(peaks.tenants[1].demand.ratio, 10.0);
  EXPECT_EQ(peaks.aggregate.num_arrivals, 20);
  EXPECT_DOUBLE_EQ(peaks.aggregate.ratio, 5.0);
}

}  // namespace
}  // namespace tidal::fleet
