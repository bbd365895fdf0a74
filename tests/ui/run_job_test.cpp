// The background run: live rows while it goes, the same run folder as a run without them, and
// cancellation through the simulator's stop request.
#include "ui/run_job.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/metrics.h"
#include "sim/run_output.h"
#include "sim/simulator.h"
#include "tests/scratch_folder.h"
#include "tests/ui/scratch_dirs.h"

namespace tidal::ui {
namespace {

namespace fs = std::filesystem;

const std::string& kScenario = test_support::kSmallScenario;
const std::string kScratch = "tidal_ui_run_job";

nlohmann::json scenario_json() {
  std::ifstream in(kScenario);
  return nlohmann::json::parse(in);
}

sim::Scenario parse(const nlohmann::json& j) {
  return sim::parse_scenario(j, kScenario, fs::path(kScenario).parent_path().string());
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The small scenario stretched to ten hours of traffic: far longer than it takes to cancel.
sim::Scenario long_scenario() {
  nlohmann::json j = scenario_json();
  j["duration_s"] = 36000;
  for (nlohmann::json& w : j["workloads"]) w["generator"]["duration_s"] = 36000;
  return parse(j);
}

TEST(RunJob, LiveRowsDoNotChangeTheRunFolder) {
  const ScratchFolder scratch(kScratch, "same_folder");
  const fs::path& out = scratch.path();
  sim::Scenario scenario = parse(scenario_json());
  RunJob job;
  job.start(scenario, (out / "dash").string());
  const RunOutcome outcome = job.wait();
  ASSERT_EQ(outcome.status, RunOutcome::Status::succeeded) << outcome.message;

  // The same scenario without a progress sink, with the outputs the dashboard switches on.
  scenario.output.requests_csv = true;
  scenario.output.timeline_csv = true;
  sim::RunResult result = sim::run_scenario(scenario);
  const sim::RunMetrics metrics = sim::compute_metrics(scenario, result);
  sim::write_run_output((out / "plain").string(), scenario, result, metrics);

  int num_files = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(out / "plain")) {
    const fs::path name = entry.path().filename();
    ++num_files;
    EXPECT_EQ(read_file(out / "dash" / name), read_file(entry.path())) << name;
  }
  EXPECT_GE(num_files, 3);  // summary.json, requests.csv, timeline.csv (and trace.json)

  // The live rows handed over during the run cover the whole run.
  LiveRows live;
  job.copy_live_rows(live);
  EXPECT_EQ(live.timeline.size(), result.timeline.size());
  EXPECT_EQ(static_cast<int64_t>(live.requests.size()), live.num_requests);
  EXPECT_EQ(live.num_requests, static_cast<int64_t>(result.records.size()));
  EXPECT_EQ(live.tenant_names, (std::vector<std::string>{"assistant", "newsroom"}));
  EXPECT_GT(job.live_version(), 0u);
}

TEST(RunJob, CancelStopsALongRunAndKeepsItsLiveRows) {
  const ScratchFolder scratch(kScratch, "cancel");
  const fs::path& out = scratch.path();
  RunJob job;
  job.start(long_scenario(), (out / "long").string());
  // Wait for the first live rows (no time limit: the run is far from done by then).
  while (job.live_version() == 0 && job.stage() != RunStage::finished) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  job.cancel();
  const RunOutcome outcome = job.wait();
  EXPECT_EQ(outcome.status, RunOutcome::Status::cancelled) << outcome.message;
  EXPECT_EQ(outcome.run, nullptr);
  EXPECT_FALSE(fs::exists(out / "long" / "summary.json"));
  EXPECT_LT(job.fraction_done(), 1.0);

  LiveRows live;
  job.copy_live_rows(live);
  ASSERT_FALSE(live.timeline.empty());
  EXPECT_LT(live.timeline.size(), 36000u / 5u);  // ended well before the last interval
  EXPECT_LT(static_cast<int64_t>(live.requests.size()), live.num_requests);
  // Intervals are contiguous from 0.
  EXPECT_EQ(live.timeline.front().start_ns, 0);
  for (size_t i = 1; i < live.timeline.size(); ++i) {
    EXPECT_EQ(live.timeline[i].start_ns, live.timeline[i - 1].end_ns) << "row " << i;
  }
}

}  // namespace
}  // namespace tidal::ui
