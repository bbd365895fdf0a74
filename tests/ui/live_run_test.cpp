// The live rows of a run and the partial LoadedRun the views draw from them: at the end of a
// run they plot what the run folder plots (dollars aside).
#include "ui/live_run.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/metrics.h"
#include "sim/run_output.h"
#include "tests/scratch_folder.h"

namespace tidal::ui {
namespace {

namespace fs = std::filesystem;

const std::string kScenario = std::string(TIDAL_SOURCE_DIR) + "/tests/ui/small_scenario.json";

sim::Scenario small_scenario() {
  std::ifstream in(kScenario);
  return sim::parse_scenario(nlohmann::json::parse(in), kScenario,
                             fs::path(kScenario).parent_path().string());
}

class CollectingSink final : public sim::ProgressSink {
 public:
  CollectingSink(const sim::Scenario& scenario, LiveRows& rows)
      : scenario_(scenario), rows_(rows) {}
  void update(const sim::ProgressReport& report) override {
    append_report(scenario_, report, rows_);
  }

 private:
  const sim::Scenario& scenario_;
  LiveRows& rows_;
};

TEST(LiveRun, AtTheEndItPlotsWhatTheRunFolderPlots) {
  sim::Scenario scenario = small_scenario();
  scenario.output.requests_csv = true;
  scenario.output.timeline_csv = true;
  const sim::RequestTable table = sim::load_workloads(scenario);
  LiveRows rows = live_rows_for(table);
  EXPECT_EQ(rows.tenant_names, (std::vector<std::string>{"assistant", "newsroom"}));
  CollectingSink sink(scenario, rows);
  sim::RunResult result = sim::simulate(scenario, table, &sink);
  const ScratchFolder scratch("tidal_ui_live_run", "end");
  const fs::path dir = scratch.path() / "run";
  sim::write_run_output(dir.string(), scenario, result, sim::compute_metrics(scenario, result));
  const std::shared_ptr<const LoadedRun> folder = load_run_folder(dir.string());
  const std::shared_ptr<const LoadedRun> live = make_live_run(rows, dir.string(), "live", "x");

  EXPECT_TRUE(live->partial);
  EXPECT_FALSE(folder->partial);
  const reports::RunSummary& m = live->data.summary;
  EXPECT_EQ(m.scenario_name, "x");
  EXPECT_EQ(m.num_requests, folder->data.summary.num_requests);
  EXPECT_EQ(m.num_finished, folder->data.summary.num_finished);
  EXPECT_EQ(m.num_rejected, folder->data.summary.num_rejected);

  const RunSeries& a = live->series;
  const RunSeries& b = folder->series;
  EXPECT_EQ(a.start_s, b.start_s);
  EXPECT_EQ(a.arrival_rate.size(), b.arrival_rate.size());
  EXPECT_EQ(a.queue_depth, b.queue_depth);
  EXPECT_EQ(a.running, b.running);
  EXPECT_EQ(a.queued_at_router, b.queued_at_router);
  ASSERT_EQ(a.replicas_by_state.size(), b.replicas_by_state.size());
  for (size_t i = 0; i < a.replicas_by_state.size(); ++i) {
    EXPECT_EQ(a.replicas_by_state[i].name, b.replicas_by_state[i].name);
    EXPECT_EQ(a.replicas_by_state[i].values, b.replicas_by_state[i].values);
  }
  for (size_t i = 0; i < a.kv_usage.size(); ++i) {
    EXPECT_NEAR(a.kv_usage[i], b.kv_usage[i], 1e-6) << "interval " << i;
  }
  // Requests: the same counts per tenant, the same latency samples (to the CSV's precision).
  ASSERT_EQ(a.tenants.size(), b.tenants.size());
  for (size_t t = 0; t < a.tenants.size(); ++t) {
    EXPECT_EQ(a.tenants[t].name, b.tenants[t].name);
    EXPECT_EQ(a.tenants[t].num_requests, b.tenants[t].num_requests);
    EXPECT_EQ(a.tenants[t].num_finished, b.tenants[t].num_finished);
    EXPECT_DOUBLE_EQ(a.tenants[t].slo_attainment, b.tenants[t].slo_attainment);
  }
  ASSERT_EQ(a.ttft_cdf.x.size(), b.ttft_cdf.x.size());
  for (size_t i = 0; i < a.ttft_cdf.x.size(); ++i) {
    EXPECT_NEAR(a.ttft_cdf.x[i], b.ttft_cdf.x[i], 1e-6) << "sample " << i;
  }
  ASSERT_EQ(a.e2e.p99.size(), b.e2e.p99.size());
  // Dollars are priced after the run: none in the live rows.
  for (const double d : live->data.timeline.cumulative_dollars) EXPECT_EQ(d, 0.0);
}

TEST(LiveRun, CopyingAppendsOnlyWhatIsNew) {
  LiveRows from;
  from.tenant_names = {"a"};
  from.class_names = {"c"};
  from.num_requests = 3;
  from.timeline.resize(2);
  from.timeline[1].start_ns = 5;
  from.requests.resize(1);
  LiveRows into;
  append_new_rows(from, into);
  EXPECT_EQ(into.timeline.size(), 2u);
  from.timeline.resize(3);
  from.timeline[2].start_ns = 10;
  from.requests.resize(3);
  append_new_rows(from, into);
  ASSERT_EQ(into.timeline.size(), 3u);
  EXPECT_EQ(into.timeline[1].start_ns, 5);
  EXPECT_EQ(into.timeline[2].start_ns, 10);
  EXPECT_EQ(into.requests.size(), 3u);
  EXPECT_EQ(into.tenant_names, from.tenant_names);
  EXPECT_EQ(into.num_requests, 3);
}

}  // namespace
}  // namespace tidal::ui
