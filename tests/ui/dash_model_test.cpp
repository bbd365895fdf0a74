// The dashboard's actions without a window: load, run in the background, pin, edit, run
// again, compare, export, cancel.
#include "ui/dash_model.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "sim/simulate_command.h"
#include "tests/scratch_folder.h"
#include "tests/ui/scratch_dirs.h"

namespace tidal::ui {
namespace {

namespace fs = std::filesystem;

const std::string& kScenario = test_support::kSmallScenario;
const std::string kScratch = "tidal_ui_model";

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(DashModel, RunPinEditRerunAndExport) {
  const ScratchFolder scratch(kScratch, "what_if");
  const fs::path& out = scratch.path();
  DashModel model(out.string());
  model.load(kScenario);
  ASSERT_TRUE(model.scenario().valid()) << model.scenario().error();
  EXPECT_EQ(model.settings().recent_files.front(), kScenario);
  EXPECT_THROW(model.pin_current(), InputError);

  model.start_run();
  EXPECT_THROW(model.start_run(), InputError);  // one run at a time
  const RunOutcome first = model.wait_for_run();
  ASSERT_EQ(first.status, RunOutcome::Status::succeeded) << first.message;
  ASSERT_NE(model.current(), nullptr);
  EXPECT_EQ(model.current()->dir, (out / "dash-small-1").string());
  EXPECT_EQ(model.current()->label, "dash-small (dash-small-1)");

  // The dashboard's run folder holds what `tidal simulate` writes for the same scenario.
  sim::SimulateOptions cli;
  cli.scenario_path = kScenario;
  cli.out_dir = (out / "cli").string();
  cli.show_progress = false;
  sim::run_simulate_command(cli);
  EXPECT_EQ(read_json(out / "dash-small-1" / "summary.json")["metrics"],
            read_json(out / "cli" / "summary.json")["metrics"]);

  model.pin_current();
  model.scenario().set("fleet.pools[0].num_replicas", 4);
  model.start_run();
  ASSERT_EQ(model.wait_for_run().status, RunOutcome::Status::succeeded);
  ASSERT_NE(model.pinned(), model.current());
  EXPECT_EQ(model.current()->dir, (out / "dash-small-2").string());
  const nlohmann::json second = read_json(out / "dash-small-2" / "summary.json");
  EXPECT_EQ(second["scenario"]["fleet"]["pools"][0]["num_replicas"], 4);
  EXPECT_EQ(model.current()->data.summary.num_requests, model.pinned()->data.summary.num_requests);
  EXPECT_GT(model.current()->data.summary.dollars, model.pinned()->data.summary.dollars);

  model.export_report((out / "report" / "report.html").string());
  EXPECT_TRUE(fs::exists(out / "report" / "report.html"));
  EXPECT_TRUE(fs::exists(out / "report" / "report.json"));

  // An opened run folder joins the list and becomes current.
  model.load((out / "cli").string());
  EXPECT_EQ(model.runs().size(), 3u);
  EXPECT_EQ(model.current()->dir, (out / "cli").string());
}

// Column `name` of a CSV file, as numbers (a plain reader, independent of the report code).
std::vector<double> csv_column(const fs::path& path, const std::string& name) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  for (std::stringstream cells(line); std::getline(cells, line, ',');) header.push_back(line);
  const auto index =
      static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  std::vector<double> values;
  while (std::getline(in, line)) {
    std::stringstream cells(line);
    std::string cell;
    for (size_t i = 0; i <= index && std::getline(cells, cell, ','); ++i) {
    }
    values.push_back(std::stod(cell));
  }
  return values;
}

TEST(DashModel, PlottedSeriesAreTheRunFoldersColumns) {
  const ScratchFolder scratch(kScratch, "columns");
  const fs::path& out = scratch.path();
  DashModel model(out.string());
  model.load(kScenario);
  model.start_run();
  ASSERT_EQ(model.wait_for_run().status, RunOutcome::Status::succeeded);
  const RunSeries& s = model.current()->series;
  const fs::path timeline = out / "dash-small-1" / "timeline.csv";
  EXPECT_EQ(s.queue_depth, csv_column(timeline, "queue_depth"));
  EXPECT_EQ(s.running, csv_column(timeline, "running"));
  EXPECT_EQ(s.kv_usage, csv_column(timeline, "kv_usage"));
  EXPECT_EQ(s.utilization, csv_column(timeline, "utilization"));
  EXPECT_EQ(s.cumulative_dollars, csv_column(timeline, "cumulative_dollars"));
  const std::vector<double> arrivals = csv_column(timeline, "arrivals");
  ASSERT_EQ(s.arrival_rate.size(), arrivals.size());
  EXPECT_DOUBLE_EQ(s.arrival_rate[0], arrivals[0] / (s.end_s[0] - s.start_s[0]));
  for (const NamedValues& state : s.replicas_by_state) {
    EXPECT_EQ(state.values, csv_column(timeline, "replicas_" + state.name)) << state.name;
  }
}

TEST(DashModel, InvalidScenariosDoNotRun) {
  const ScratchFolder scratch(kScratch, "invalid");
  DashModel model(scratch.path().string());
  model.scenario().set("fleet.pools[0].tp", 3);
  try {
    model.start_run();
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "the scenario is invalid: " + model.scenario().error());
  }
  EXPECT_FALSE(model.running());
}

TEST(DashModel, WorkloadErrorsFoundByTheRunAreFlaggedOnTheField) {
  const ScratchFolder scratch(kScratch, "bad_generator");
  DashModel model(scratch.path().string());
  model.load(kScenario);
  model.scenario().set("workloads[0].generator.rate", -1);
  ASSERT_TRUE(model.scenario().valid());  // generator specs are checked when the run loads them
  model.start_run();
  const RunOutcome outcome = model.wait_for_run();
  EXPECT_EQ(outcome.status, RunOutcome::Status::failed);
  EXPECT_FALSE(model.scenario().valid());
  EXPECT_EQ(model.scenario().error_path(), "workloads[0].generator.rate");
  EXPECT_TRUE(model.banner().is_error);
  EXPECT_EQ(model.current(), nullptr);
}

TEST(DashModel, CancelEndsTheRunWithoutARunFolder) {
  const ScratchFolder scratch(kScratch, "cancel");
  const fs::path& out = scratch.path();
  DashModel model(out.string());  // the built-in default scenario: an hour of traffic
  model.start_run();
  model.cancel_run();
  EXPECT_EQ(model.wait_for_run().status, RunOutcome::Status::cancelled);
  EXPECT_EQ(model.current(), nullptr);
  EXPECT_FALSE(fs::exists(out / "default-1" / "summary.json"));
  EXPECT_EQ(model.banner().text, "run cancelled");
}

TEST(DashModel, LiveRowsGiveWayToTheRunFolder) {
  const ScratchFolder scratch(kScratch, "live");
  DashModel model(scratch.path().string());
  model.load(kScenario);
  model.start_run();
  EXPECT_TRUE(model.showing_live());
  ASSERT_EQ(model.wait_for_run().status, RunOutcome::Status::succeeded);
  EXPECT_FALSE(model.showing_live());
  EXPECT_EQ(model.live(), nullptr);
  ASSERT_NE(model.current(), nullptr);
  EXPECT_EQ(model.shown(), model.current());
  EXPECT_FALSE(model.shown()->partial);
}

TEST(DashModel, ACancelledRunKeepsItsLiveRowsVisible) {
  const ScratchFolder scratch(kScratch, "cancel_live");
  DashModel model(scratch.path().string());
  model.load(kScenario);
  model.scenario().set("duration_s", 36000);  // ten hours: far from done when cancelled
  model.scenario().set("workloads[0].generator.duration_s", 36000);
  model.scenario().set("workloads[1].generator.duration_s", 36000);
  ASSERT_TRUE(model.scenario().valid()) << model.scenario().error();
  model.start_run();
  while (model.job().live_version() == 0 && model.job().stage() != RunStage::finished) {
    model.poll();
  }
  model.cancel_run();
  EXPECT_EQ(model.wait_for_run().status, RunOutcome::Status::cancelled);
  EXPECT_EQ(model.current(), nullptr);
  ASSERT_NE(model.live(), nullptr);
  EXPECT_EQ(model.shown(), model.live());
  EXPECT_TRUE(model.live()->partial);
  EXPECT_EQ(model.live()->label, "dash-small (dash-small-1, cancelled)");
  EXPECT_FALSE(model.live()->series.start_s.empty());
  EXPECT_LT(model.live()->data.summary.num_finished, model.live()->data.summary.num_requests);
  EXPECT_EQ(model.time_axis().limits().max, model.live()->series.end_s.back());
}

TEST(DashModel, LoadErrors) {
  const ScratchFolder out(kScratch, "load");
  DashModel model(out.path().string());
  const ScratchFolder not_a_run(kScratch, "not_a_run");
  const fs::path& empty = not_a_run.path();
  try {
    model.load(empty.string());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), empty.string() + ": not a run folder (no summary.json)");
  }
  EXPECT_THROW(model.load("/nonexistent/trace.csv"), InputError);
  EXPECT_THROW(model.export_report("/tmp/x.html"), InputError);
}

}  // namespace
}  // namespace tidal::ui
