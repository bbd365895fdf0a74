// Repeated decode steps (sched::Scheduler::repeat_step, on by default) against stepping one by
// one (Scenario::step_by_step, `tidal simulate --step-by-step`): every example scenario must
// write byte-identical run folders both ways.
#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "sim/metrics.h"
#include "sim/run_output.h"
#include "sim/scenario.h"
#include "sim/simulator.h"
#include "sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::TempDir;

std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The example files that are scenarios (the others are plan specs, validation matrices and
// model configs, which have no workloads), in name order.
std::vector<std::filesystem::path> example_scenarios() {
  std::vector<std::filesystem::path> paths;
  const std::filesystem::path root = std::filesystem::path(TIDAL_SOURCE_DIR) / "examples";
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".json") continue;
    try {
      load_scenario_file(entry.path().string());
    } catch (const InputError& e) {
      if (std::string(e.what()).find("workloads: missing") != std::string::npos) continue;
      throw;
    }
    paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

void write_run(const Scenario& scenario, const std::filesystem::path& dir) {
  RunResult result = run_scenario(scenario);
  const RunMetrics metrics = compute_metrics(scenario, result);
  write_run_output(dir.string(), scenario, result, metrics);
}

TEST(RepeatedSteps, EveryExampleWritesTheSameRunFolderAsStepByStep) {
  const std::vector<std::filesystem::path> scenarios = example_scenarios();
  EXPECT_GE(scenarios.size(), 80u) << "examples/ lost its scenarios";
  TempDir dir("repeated_steps");
  for (const std::filesystem::path& path : scenarios) {
    SCOPED_TRACE(path.string());
    Scenario scenario = load_scenario_file(path.string());
    const std::filesystem::path repeated = dir.path() / "repeated";
    const std::filesystem::path one_by_one = dir.path() / "step_by_step";
    std::filesystem::remove_all(repeated);
    std::filesystem::remove_all(one_by_one);
    write_run(scenario, repeated);
    scenario.step_by_step = true;
    write_run(scenario, one_by_one);
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(one_by_one)) {
      names.push_back(entry.path().filename().string());
    }
    ASSERT_FALSE(names.empty());
    for (const std::string& name : names) {
      ASSERT_TRUE(std::filesystem::exists(repeated / name)) << name;
      EXPECT_TRUE(file_bytes(repeated / name) == file_bytes(one_by_one / name)) << name;
    }
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(repeated),
                            std::filesystem::directory_iterator()),
              static_cast<std::ptrdiff_t>(names.size()));
  }
}

}  // namespace
}  // namespace tidal::sim
