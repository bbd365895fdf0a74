// Run-output files: byte-identical across runs, and requests.csv equal to a committed golden
// file.
//
// To regenerate the golden file after an intended change of simulated behaviour (scheduler,
// step-time model, generator or this scenario), run the test with TIDAL_UPDATE_GOLDEN=1:
//   TIDAL_UPDATE_GOLDEN=1 build/tests/sim/sim_run_output_test --gtest_filter=RunOutput.Golden*
// then review `git diff tests/sim/golden/` and commit it.
#include "sim/run_output.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::h100_pool;
using testing::scenario_from;
using testing::TempDir;

const char* const kGoldenPath = TIDAL_SOURCE_DIR "/tests/sim/golden/small_requests.csv";

// Two workloads, two pools, prefix-sharing sessions: small but touches every column.
Scenario small_scenario() {
  nlohmann::json a100 = {
      {"name", "a100"},
      {"model", "llama-3-8b"},
      {"gpu", "A100-80GB"},
      {"num_replicas", 1},
      {"scheduler", {{"policy", "chunked_prefill"}, {"max_num_batched_tokens", 512}}}};
  return scenario_from({{"name", "small"},
                        {"seed", 7},
                        {"duration_s", 20},
                        {"timeline_interval_s", 2},
                        {"workloads",
                         {{{"name", "chat"},
                           {"generator",
                            {{"kind", "sessions"},
                             {"duration_s", 20},
                             {"session_rate", 0.5},
                             {"system_prompt_tokens", 64},
                             {"think_time_s", {{"dist", "exponential"}, {"mean", 2}}}}},
                           {"slo_class", "interactive"},
                           {"slo", {{"ttft_s", 0.2}, {"tpot_s", 0.02}}}},
                          {{"name", "burst"},
                           {"generator", {{"kind", "poisson"}, {"rate", 1.5}, {"duration_s", 20}}},
                           {"tenant", "b"},
                           {"slo_class", "batch"},
                           {"slo", {{"e2e_s", 10}}}}}},
                        {"fleet", {{"pools", {h100_pool(1), a100}}}},
                        {"router", {{"policy", "round_robin"}}},
                        {"output", {{"trace_max_slices", 50}}}});
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string run_to_folder(const Scenario& s, const std::filesystem::path& dir) {
  RunResult r = run_scenario(s);
  const RunMetrics m = compute_metrics(s, r);
  write_run_output(dir.string(), s, r, m);
  return read_file(dir / "requests.csv");
}

TEST(RunOutput, FilesAreByteIdenticalAcrossRuns) {
  TempDir dir("run_output_twice");
  const Scenario s = small_scenario();
  run_to_folder(s, dir.path() / "a");
  run_to_folder(s, dir.path() / "b");
  for (const char* name : {"summary.json", "requests.csv", "timeline.csv", "trace.json"}) {
    const std::string a = read_file(dir.path() / "a" / name);
    EXPECT_FALSE(a.empty()) << name;
    EXPECT_EQ(a, read_file(dir.path() / "b" / name)) << name;
  }
}

TEST(RunOutput, GoldenRequestsCsv) {
  TempDir dir("run_output_golden");
  const std::string csv = run_to_folder(small_scenario(), dir.path());
  if (std::getenv("TIDAL_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(kGoldenPath, std::ios::binary) << csv;
    GTEST_SKIP() << "wrote " << kGoldenPath;
  }
  const std::string golden = read_file(kGoldenPath);
  ASSERT_FALSE(golden.empty()) << "missing " << kGoldenPath << " (see the comment on top)";
  EXPECT_EQ(csv, golden);
}

TEST(RunOutput, FileShapes) {
  TempDir dir("run_output_shapes");
  const Scenario s = small_scenario();
  RunResult r = run_scenario(s);
  const RunMetrics m = compute_metrics(s, r);
  write_run_output(dir.path().string(), s, r, m);

  const std::string csv = read_file(dir.path() / "requests.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'),
            static_cast<std::ptrdiff_t>(r.table.requests.size()) + 1);
  const std::string timeline = read_file(dir.path() / "timeline.csv");
  EXPECT_EQ(std::count(timeline.begin(), timeline.end(), '\n'),
            static_cast<std::ptrdiff_t>(r.timeline.size()) + 1);

  const auto trace = nlohmann::json::parse(read_file(dir.path() / "trace.json"));
  int num_slices = 0;
  for (const auto& e : trace["traceEvents"]) num_slices += e["ph"] == "X";
  EXPECT_EQ(num_slices, 50);  // capped by output.trace_max_slices
  EXPECT_EQ(trace["otherData"]["num_slices_dropped"], r.num_steps - 50);

  const auto summary = nlohmann::json::parse(read_file(dir.path() / "summary.json"));
  EXPECT_EQ(summary["scenario"]["name"], "small");
  EXPECT_EQ(summary["scenario"]["fleet"]["pools"][1]["scheduler"]["policy"], "chunked_prefill");
  EXPECT_EQ(summary["metrics"]["num_requests"], r.table.requests.size());
  EXPECT_EQ(summary["costs"]["dollars"], m.dollars);
  // The echoed scenario loads again.
  EXPECT_NO_THROW(scenario_from(summary["scenario"]));
}

TEST(RunOutput, KnobsTurnFilesOffAndRemoveStaleOnes) {
  TempDir dir("run_output_knobs");
  Scenario s = small_scenario();
  RunResult r = run_scenario(s);
  const RunMetrics m = compute_metrics(s, r);
  write_run_output(dir.path().string(), s, r, m);
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "trace.json"));
  s.output.trace_json = false;
  s.output.timeline_csv = false;
  write_run_output(dir.path().string(), s, r, m);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "trace.json"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "timeline.csv"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "requests.csv"));
}

}  // namespace
}  // namespace tidal::sim
