// The progress sink: reports hand over the timeline rows and the requests that ended since the
// previous report, and a sink that asks to stop ends the run there.
#include <array>
#include <vector>

#include <gtest/gtest.h>

#include "sim/simulator.h"
#include "sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::h100_pool;
using testing::scenario_from;

// About 1,200 requests on two replicas: tens of thousands of events, so several reports.
Scenario busy_scenario() {
  const nlohmann::json generator = {
      {"kind", "poisson"},
      {"rate", 10},
      {"duration_s", 120},
      {"prompt", {{"dist", "lognormal"}, {"median", 600}, {"sigma", 0.8}, {"max", 8000}}},
      {"output", {{"dist", "lognormal"}, {"median", 150}, {"sigma", 0.8}, {"max", 1500}}}};
  const nlohmann::json j = {{"name", "progress"},
                            {"seed", 11},
                            {"timeline_interval_s", 5},
                            {"workloads", {{{"name", "chat"}, {"generator", generator}}}},
                            {"fleet", {{"pools", {h100_pool(2)}}}}};
  return scenario_from(j);
}

// What a report said about one ended request, copied while the report lasted.
struct EndedRequest {
  int64_t id = 0;
  RequestStatus status = RequestStatus::pending;
  int64_t first_token_ns = -1;
  int64_t finish_ns = -1;
  int64_t num_output_tokens_done = 0;
};

// Keeps everything the reports hand over; asks to stop after `stop_after` reports (0: never).
class RecordingSink final : public ProgressSink {
 public:
  explicit RecordingSink(int stop_after = 0) : stop_after_(stop_after) {}

  void update(const ProgressReport& report) override {
    ++num_reports;
    EXPECT_FALSE(saw_last) << "a report after the last one";
    saw_last = report.last;
    EXPECT_GE(report.fraction_done, last_fraction);
    last_fraction = report.fraction_done;
    rows.insert(rows.end(), report.new_rows.begin(), report.new_rows.end());
    for (const int64_t id : report.newly_done) {
      const RequestRecord& r = report.records[static_cast<size_t>(id)];
      EXPECT_NE(r.status, RequestStatus::pending) << "request " << id;
      ended.push_back({id, r.status, r.first_token_ns, r.finish_ns, r.num_output_tokens_done});
    }
    ASSERT_NE(report.table, nullptr);
    EXPECT_EQ(report.records.size(), report.table->requests.size());
  }
  bool stop_requested() const override { return stop_after_ > 0 && num_reports >= stop_after_; }

  int num_reports = 0;
  bool saw_last = false;
  double last_fraction = 0.0;
  std::vector<TimelineRow> rows;
  std::vector<EndedRequest> ended;

 private:
  int stop_after_;
};

// Every column but the dollars, which the billing ledger fills in after the run.
void expect_same_rows_but_dollars(const std::vector<TimelineRow>& handed,
                                  const std::vector<TimelineRow>& timeline) {
  ASSERT_EQ(handed.size(), timeline.size());
  for (size_t i = 0; i < handed.size(); ++i) {
    TimelineRow expected = timeline[i];
    expected.dollars = 0.0;
    expected.cumulative_dollars = 0.0;
    expected.micro_dollars = 0;
    expected.cumulative_micro_dollars = 0;
    const TimelineRow& h = handed[i];
    EXPECT_EQ(h.start_ns, expected.start_ns) << "row " << i;
    EXPECT_EQ(h.end_ns, expected.end_ns) << "row " << i;
    EXPECT_EQ(h.num_arrivals, expected.num_arrivals) << "row " << i;
    EXPECT_EQ(h.num_finished, expected.num_finished) << "row " << i;
    EXPECT_EQ(h.num_rejected, expected.num_rejected) << "row " << i;
    EXPECT_EQ(h.num_output_tokens, expected.num_output_tokens) << "row " << i;
    EXPECT_EQ(h.queue_depth, expected.queue_depth) << "row " << i;
    EXPECT_EQ(h.num_running, expected.num_running) << "row " << i;
    EXPECT_EQ(h.num_replicas_by_state, expected.num_replicas_by_state) << "row " << i;
    EXPECT_EQ(h.kv_usage, expected.kv_usage) << "row " << i;
    EXPECT_EQ(h.utilization, expected.utilization) << "row " << i;
    EXPECT_EQ(h.num_queued_at_router, expected.num_queued_at_router) << "row " << i;
    EXPECT_EQ(h.max_queue_depth, expected.max_queue_depth) << "row " << i;
    EXPECT_EQ(h.mean_queue_depth, expected.mean_queue_depth) << "row " << i;
    EXPECT_EQ(h.max_running, expected.max_running) << "row " << i;
    EXPECT_EQ(h.mean_running, expected.mean_running) << "row " << i;
    EXPECT_EQ(h.max_kv_usage, expected.max_kv_usage) << "row " << i;
    EXPECT_EQ(h.mean_kv_usage, expected.mean_kv_usage) << "row " << i;
    EXPECT_EQ(h.max_queued_at_router, expected.max_queued_at_router) << "row " << i;
    EXPECT_EQ(h.mfu, expected.mfu) << "row " << i;
    EXPECT_EQ(h.mbu, expected.mbu) << "row " << i;
    EXPECT_EQ(h.dollars, 0.0) << "row " << i;
    EXPECT_EQ(h.cumulative_dollars, 0.0) << "row " << i;
    EXPECT_EQ(h.micro_dollars, 0) << "row " << i;
    EXPECT_EQ(h.cumulative_micro_dollars, 0) << "row " << i;
  }
}

TEST(Progress, ReportsHandOverTheTimelineAndEveryEndedRequestOnce) {
  const Scenario scenario = busy_scenario();
  RecordingSink sink;
  const RunResult r = run_scenario(scenario, &sink);
  ASSERT_GT(sink.num_reports, 3) << "the run should be long enough for several reports";
  EXPECT_TRUE(sink.saw_last);
  EXPECT_EQ(sink.last_fraction, 1.0);
  EXPECT_FALSE(r.stopped_early);
  expect_same_rows_but_dollars(sink.rows, r.timeline);

  ASSERT_EQ(sink.ended.size(), r.records.size());
  std::vector<int> num_seen(r.records.size(), 0);  // [num_requests]
  for (const EndedRequest& e : sink.ended) {
    const RequestRecord& final_record = r.records[static_cast<size_t>(e.id)];
    ++num_seen[static_cast<size_t>(e.id)];
    EXPECT_EQ(e.status, final_record.status) << "request " << e.id;
    EXPECT_EQ(e.first_token_ns, final_record.first_token_ns) << "request " << e.id;
    EXPECT_EQ(e.finish_ns, final_record.finish_ns) << "request " << e.id;
    EXPECT_EQ(e.num_output_tokens_done, final_record.num_output_tokens_done) << "request " << e.id;
  }
  for (size_t i = 0; i < num_seen.size(); ++i) EXPECT_EQ(num_seen[i], 1) << "request " << i;
}

TEST(Progress, ASinkDoesNotChangeTheRun) {
  const Scenario scenario = busy_scenario();
  RecordingSink sink;
  const RunResult with_sink = run_scenario(scenario, &sink);
  const RunResult without = run_scenario(scenario);
  EXPECT_EQ(with_sink.num_events, without.num_events);
  EXPECT_EQ(with_sink.end_ns, without.end_ns);
  ASSERT_EQ(with_sink.timeline.size(), without.timeline.size());
  for (size_t i = 0; i < without.timeline.size(); ++i) {
    EXPECT_EQ(with_sink.timeline[i].cumulative_micro_dollars,
              without.timeline[i].cumulative_micro_dollars);
    EXPECT_EQ(with_sink.timeline[i].num_finished, without.timeline[i].num_finished);
  }
  for (size_t i = 0; i < without.records.size(); ++i) {
    EXPECT_EQ(with_sink.records[i].finish_ns, without.records[i].finish_ns) << "request " << i;
  }
}

// The requests' records as each report hands them over, every request's: the deferred decode
// runs (sim/decode_run.h) must be in them, as stepping one by one has them.
class RecordSnapshots final : public ProgressSink {
 public:
  void update(const ProgressReport& report) override {
    for (const RequestRecord& r : report.records) {
      snapshots.push_back({r.num_output_tokens_done, r.last_token_ns, r.max_itl_ns});
    }
  }
  bool stop_requested() const override { return false; }

  std::vector<std::array<int64_t, 3>> snapshots;  // [num reports x num requests]
};

TEST(Progress, ReportsShowRunningRequestsAsSteppingOneByOne) {
  Scenario scenario = busy_scenario();
  RecordSnapshots deferred;
  const RunResult with_runs = run_scenario(scenario, &deferred);
  scenario.step_by_step = true;
  RecordSnapshots one_by_one;
  const RunResult stepped = run_scenario(scenario, &one_by_one);
  ASSERT_GT(one_by_one.snapshots.size(), 3 * with_runs.records.size());
  EXPECT_TRUE(deferred.snapshots == one_by_one.snapshots);
  const LatencySummary itl = SampleSet(with_runs.itl).summarize();
  const LatencySummary stepped_itl = SampleSet(stepped.itl).summarize();
  EXPECT_GT(stepped_itl.count, 0);
  EXPECT_EQ(itl.count, stepped_itl.count);
  EXPECT_EQ(itl.mean, stepped_itl.mean);
  EXPECT_EQ(itl.p99, stepped_itl.p99);
}

TEST(Progress, ASinkAskingToStopEndsTheRunEarly) {
  const Scenario scenario = busy_scenario();
  RecordingSink sink(2);
  const RunResult r = run_scenario(scenario, &sink);
  EXPECT_TRUE(r.stopped_early);
  EXPECT_EQ(sink.num_reports, 3);  // two during the run, then the final one
  EXPECT_TRUE(sink.saw_last);
  EXPECT_EQ(r.num_events, 2 * 4096);
  EXPECT_LT(sink.last_fraction, 1.0);
  expect_same_rows_but_dollars(sink.rows, r.timeline);
  int64_t num_pending = 0;
  for (const RequestRecord& rec : r.records) num_pending += rec.status == RequestStatus::pending;
  EXPECT_GT(num_pending, 0);
  EXPECT_EQ(static_cast<int64_t>(sink.ended.size()) + num_pending,
            static_cast<int64_t>(r.records.size()));

  const RunResult full = run_scenario(scenario);
  EXPECT_LT(r.end_ns, full.end_ns);
  // Up to the stop, the stopped run is the full run.
  for (size_t i = 0; i + 1 < r.timeline.size(); ++i) {
    EXPECT_EQ(r.timeline[i].num_finished, full.timeline[i].num_finished) << "row " << i;
    EXPECT_EQ(r.timeline[i].queue_depth, full.timeline[i].queue_depth) << "row " << i;
  }
}

}  // namespace
}  // namespace tidal::sim
