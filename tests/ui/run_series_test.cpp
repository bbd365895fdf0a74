#include "ui/run_series.h"

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

namespace tidal::ui {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Three 10-second intervals; five requests from two tenants.
reports::RunData small_run() {
  reports::RunData run;
  reports::TimelineRows& tl = run.timeline;
  tl.start_s = {0.0, 10.0, 20.0};
  tl.end_s = {10.0, 20.0, 25.0};
  tl.arrivals = {1.0, 3.0, 1.0};
  tl.output_tokens = {100.0, 300.0, 50.0};
  tl.queue_depth = {0.0, 2.0, 0.0};
  tl.running = {1.0, 3.0, 0.0};
  tl.kv_usage = {0.1, 0.5, 0.0};
  tl.utilization = {0.2, 0.9, 0.1};
  tl.cumulative_dollars = {1.0, 2.0, 2.5};
  // `starting` is the sum of its parts (provisioning, loading), so the views leave it out.
  tl.replicas_by_state = {{"warm", {1.0, 2.0, 2.0}},
                          {"starting", {1.0, 0.0, 0.0}},
                          {"loading", {1.0, 0.0, 0.0}},
                          {"provisioning", {0.0, 0.0, 0.0}}};
  tl.queued_at_router = {0.0, 4.0, 0.0};

  reports::RequestRows& r = run.requests;
  r.tenant_names = {"a", "b"};
  r.class_names = {"default"};
  r.tenant = {0, 0, 1, 0, 1};
  r.slo_class = {0, 0, 0, 0, 0};
  r.arrival_s = {2.0, 11.0, 12.0, 15.0, 21.0};
  r.prompt_tokens = {100, 200, 300, 400, 500};
  r.output_tokens = {10, 20, 30, 40, 50};
  r.ttft_s = {0.1, 0.4, 0.2, 0.3, kNaN};
  r.tpot_s = {0.01, 0.02, 0.03, 0.04, kNaN};
  r.e2e_s = {1.0, 2.0, 3.0, 4.0, kNaN};  // finish: 3, 13, 15, 19
  r.queue_delay_s = {0.0, 0.1, 0.1, 0.2, kNaN};
  r.finished = {1, 1, 1, 1, 0};
  r.slo_met = {1, 0, 1, 1, 0};
  return run;
}

TEST(RunSeries, ArrivalRatesAndPeakToMean) {
  const RunSeries s = derive_series(small_run());
  EXPECT_EQ(s.mid_s, (std::vector<double>{5.0, 15.0, 22.5}));
  EXPECT_EQ(s.arrival_rate, (std::vector<double>{0.1, 0.3, 0.2}));
  EXPECT_DOUBLE_EQ(s.mean_arrival_rate, 5.0 / 25.0);
  EXPECT_DOUBLE_EQ(s.peak_arrival_rate, 0.3);
  EXPECT_DOUBLE_EQ(s.peak_to_mean, 1.5);
  EXPECT_EQ(s.output_tokens_per_s, (std::vector<double>{10.0, 30.0, 10.0}));
  ASSERT_EQ(s.tenant_arrival_rate.size(), 2u);
  EXPECT_EQ(s.tenant_arrival_rate[0].values, (std::vector<double>{0.1, 0.2, 0.0}));
  EXPECT_EQ(s.tenant_arrival_rate[1].values, (std::vector<double>{0.0, 0.1, 0.2}));
  EXPECT_EQ(s.queued_at_router, (std::vector<double>{0.0, 4.0, 0.0}));
  std::vector<std::string> states;
  for (const NamedValues& v : s.replicas_by_state) states.push_back(v.name);
  EXPECT_EQ(std::count(states.begin(), states.end(), "starting"), 0);
  EXPECT_EQ(std::count(states.begin(), states.end(), "warm"), 1);
  EXPECT_EQ(states.size(), 3u);
}

TEST(RunSeries, PercentilesByArrivalIntervalAreNearestRank) {
  const RunSeries s = derive_series(small_run());
  // Interval 1 holds TTFTs {0.4, 0.2, 0.3}: p50 is the 2nd smallest, p90 and p99 the largest.
  EXPECT_DOUBLE_EQ(s.ttft.p50[1], 0.3);
  EXPECT_DOUBLE_EQ(s.ttft.p90[1], 0.4);
  EXPECT_DOUBLE_EQ(s.ttft.p99[1], 0.4);
  EXPECT_DOUBLE_EQ(s.ttft.p50[0], 0.1);
  EXPECT_TRUE(std::isnan(s.ttft.p50[2]));  // its only request was not finished
  EXPECT_DOUBLE_EQ(s.e2e.p99[1], 4.0);
}

TEST(RunSeries, CdfsHoldFinishedSamplesInOrder) {
  const RunSeries s = derive_series(small_run());
  EXPECT_EQ(s.ttft_cdf.x, (std::vector<double>{0.1, 0.2, 0.3, 0.4}));
  EXPECT_EQ(s.ttft_cdf.y, (std::vector<double>{0.25, 0.5, 0.75, 1.0}));
  EXPECT_EQ(s.e2e_cdf.x.size(), 4u);
}

TEST(RunSeries, CostPerMillionTokensCountsFinishedRequests) {
  const RunSeries s = derive_series(small_run());
  // Finished by 10 s: request 0 (110 tokens); by 20 s: all four (1,100 tokens).
  EXPECT_DOUBLE_EQ(s.dollars_per_1m_tokens[0], 1.0 / 110.0 * 1e6);
  EXPECT_DOUBLE_EQ(s.dollars_per_1m_tokens[1], 2.0 / 1100.0 * 1e6);
  EXPECT_DOUBLE_EQ(s.dollars_per_1m_tokens[2], 2.5 / 1100.0 * 1e6);
}

TEST(RunSeries, TenantFigures) {
  const RunSeries s = derive_series(small_run());
  ASSERT_EQ(s.tenants.size(), 2u);
  const TenantFigures& a = s.tenants[0];
  EXPECT_EQ(a.name, "a");
  EXPECT_EQ(a.num_requests, 3);
  EXPECT_EQ(a.num_finished, 3);
  EXPECT_EQ(a.num_rejected, 0);
  EXPECT_DOUBLE_EQ(a.slo_attainment, 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(a.ttft_p50_s, 0.3);
  EXPECT_DOUBLE_EQ(a.ttft_p99_s, 0.4);
  EXPECT_DOUBLE_EQ(a.input_tokens, 700.0);
  EXPECT_DOUBLE_EQ(a.output_tokens, 70.0);
  EXPECT_DOUBLE_EQ(a.peak_to_mean, 2.0 / 1.0);  // {1, 2, 0}: peak 2, mean 1
  const TenantFigures& b = s.tenants[1];
  EXPECT_EQ(b.num_rejected, 1);
  EXPECT_DOUBLE_EQ(b.slo_attainment, 0.5);
  EXPECT_DOUBLE_EQ(b.e2e_p99_s, 3.0);
}

TEST(RunSeries, NearestRankAndPeakToMean) {
  const std::vector<double> sorted{1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0};
  EXPECT_DOUBLE_EQ(nearest_rank(sorted, 50.0), 5.0);
  EXPECT_DOUBLE_EQ(nearest_rank(sorted, 90.0), 9.0);
  EXPECT_DOUBLE_EQ(nearest_rank(sorted, 99.0), 10.0);
  EXPECT_DOUBLE_EQ(nearest_rank(sorted, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(peak_to_mean({0.0, 0.0}), 0.0);
  EXPECT_DOUBLE_EQ(peak_to_mean({1.0, 3.0}), 1.5);
}

}  // namespace
}  // namespace tidal::ui
