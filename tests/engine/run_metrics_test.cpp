// Run metrics and the timeline derived from request records and steps.
#include <gtest/gtest.h>

#include "engine/run_metrics.h"

namespace tidal::engine {
namespace {

TEST(RunMetrics, NearestRankPercentiles) {
  const LatencySummary s = summarize({5.0, 1.0, 4.0, 2.0, 3.0});
  EXPECT_EQ(s.count, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3.0);
  EXPECT_EQ(s.p50, 3.0);  // ceil(2.5) = 3rd
  EXPECT_EQ(s.p90, 5.0);  // ceil(4.5) = 5th
  EXPECT_EQ(s.p99, 5.0);
  EXPECT_EQ(s.max, 5.0);
  EXPECT_EQ(summarize({}).count, 0);
}

TEST(RunMetrics, LatenciesAndThroughputFollowTheSimulatorDefinitions) {
  RequestRecord done;
  done.arrival_ns = 1'000'000'000;
  done.first_scheduled_ns = 1'500'000'000;
  done.first_token_ns = 2'000'000'000;
  done.finish_ns = 4'000'000'000;
  done.num_output_tokens_done = 5;
  done.status = RequestStatus::finished;
  RequestRecord refused;
  refused.status = RequestStatus::rejected;
  refused.reason = "exceeds_max_model_len";
  refused.rejected_ns = 0;
  const RequestLatency lat = request_latency(done);
  EXPECT_DOUBLE_EQ(*lat.ttft_s, 1.0);
  EXPECT_DOUBLE_EQ(*lat.tpot_s, 0.5);
  EXPECT_DOUBLE_EQ(*lat.e2e_s, 3.0);
  EXPECT_DOUBLE_EQ(*lat.queue_delay_s, 0.5);
  EXPECT_FALSE(request_latency(refused).ttft_s);

  Request q;
  q.prompt_tokens = 10;
  q.output_tokens = 5;
  const RunMetrics m =
      compute_metrics({done, refused}, {q, q}, {0.5, 0.5}, 2'000'000'000, 4'000'000'000);
  EXPECT_EQ(m.num_finished, 1);
  EXPECT_EQ(m.num_rejected, 1);
  EXPECT_DOUBLE_EQ(m.output_tokens_per_s, 5.0 / 4.0);
  EXPECT_DOUBLE_EQ(m.input_tokens_per_s, 10.0 / 4.0);
  EXPECT_DOUBLE_EQ(m.utilization, 0.5);
  ASSERT_EQ(m.rejections.size(), 1u);
  EXPECT_EQ(m.rejections[0].first, "exceeds_max_model_len");
}

TEST(RunMetrics, TimelineCountsPerIntervalAndSplitsBusyTime) {
  RequestRecord r;
  r.arrival_ns = 100;
  r.finish_ns = 1'500'000'000;
  r.status = RequestStatus::finished;
  StepRecord step;
  step.start_ns = 500'000'000;
  step.end_ns = 1'500'000'000;  // half in interval 0, half in interval 1
  step.events.push_back(sched::RequestEvent{0, 3, false, true, true, 0, 0});
  const std::vector<TimelineRow> rows = compute_timeline(
      {r}, {step}, {StateSample{1'500'000'000, 2, 1, 0.25}}, 1'000'000'000, 2'000'000'000);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].num_arrivals, 1);
  EXPECT_EQ(rows[1].num_finished, 1);
  EXPECT_EQ(rows[1].num_output_tokens, 3);
  EXPECT_DOUBLE_EQ(rows[0].utilization, 0.5);
  EXPECT_DOUBLE_EQ(rows[1].utilization, 0.5);
  EXPECT_EQ(rows[0].queue_depth, 0) << "no state sampled yet";
  EXPECT_EQ(rows[1].queue_depth, 2);
  EXPECT_DOUBLE_EQ(rows[1].kv_usage, 0.25);
}

// A run that ended at t = 0 has no interval; one that ended 400 ns in has one row ending on the
// next whole microsecond, so the printed row never ends where it starts.
TEST(RunMetrics, TimelineRowsNeverHaveZeroPrintedLength) {
  EXPECT_TRUE(compute_timeline({}, {}, {}, 1'000'000'000, 0).empty());
  const std::vector<TimelineRow> rows = compute_timeline({}, {}, {}, 1'000'000'000, 400);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].start_ns, 0);
  EXPECT_EQ(rows[0].end_ns, 1000);
}

}  // namespace
}  // namespace tidal::engine
