// `tidal simulate`'s run folder is written as a whole (docs/run-output.md, "Nothing lost"): a
// rerun keeps no file of the earlier run, a folder tidal did not write is refused before the
// run, and paths that would go astray (`--out ""`, a scenario name with '/') are errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "base/input_error.h"
#include "base/run_folder.h"
#include "sim/run_output.h"
#include "sim/simulate_command.h"
#include "sim_test_util.h"

namespace tidal::sim {
namespace {

namespace fs = std::filesystem;
using testing::h100_pool;
using testing::TempDir;

nlohmann::json tiny_scenario(const std::string& name) {
  return {{"name", name},
          {"seed", 3},
          {"workloads",
           {{{"name", "w"}, {"generator", {{"kind", "poisson"}, {"rate", 2}, {"duration_s", 5}}}}}},
          {"fleet", {{"pools", {h100_pool(1)}}}}};
}

std::string write_scenario(const TempDir& dir, const nlohmann::json& scenario) {
  const std::string path = (dir.path() / "scenario.json").string();
  std::ofstream(path) << scenario.dump();
  return path;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string simulate(const std::string& scenario_path, const std::string& out) {
  SimulateOptions options;
  options.scenario_path = scenario_path;
  options.out_dir = out;
  options.show_progress = false;
  return run_simulate_command(options);
}

std::string error_of(const std::string& scenario_path, const std::string& out) {
  try {
    simulate(scenario_path, out);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(RunFolder, ARerunReplacesTheWholeFolder) {
  TempDir dir("run_folder_rerun");
  const std::string scenario = write_scenario(dir, tiny_scenario("tiny"));
  const fs::path out = dir.path() / "out";
  simulate(scenario, out.string());
  EXPECT_TRUE(base::is_tidal_run_folder(out.string()));
  const std::string summary = read_file(out / "summary.json");
  std::ofstream(out / "steps.csv") << "a file tidal did not write here\n";
  simulate(scenario, out.string());
  EXPECT_FALSE(fs::exists(out / "steps.csv"));
  EXPECT_EQ(read_file(out / "summary.json"), summary);  // equal runs, equal files and run id
  int num_entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++num_entries;
  EXPECT_EQ(num_entries, 2);  // scenario.json and out: no temporary folder left
}

TEST(RunFolder, AFolderTidalDidNotWriteIsRefusedBeforeTheRun) {
  TempDir dir("run_folder_foreign");
  const std::string scenario = write_scenario(dir, tiny_scenario("tiny"));
  const fs::path out = dir.path() / "photos";
  fs::create_directories(out);
  std::ofstream(out / "summary.json") << "{\"mine\": true}";
  EXPECT_EQ(error_of(scenario, out.string())
                .rfind(out.string() + ": the folder holds files and is not a tidal run folder", 0),
            0u);
  EXPECT_EQ(read_file(out / "summary.json"), "{\"mine\": true}");
}

TEST(RunFolder, AnEmptyOutIsAnError) {
  TempDir dir("run_folder_empty_out");
  const std::string scenario = write_scenario(dir, tiny_scenario("tiny"));
  EXPECT_EQ(error_of(scenario, ""), "--out: must name a folder (got an empty path)");
}

TEST(RunFolder, AScenarioNameThatIsAPathIsAnError) {
  TempDir dir("run_folder_name");
  for (const std::string name : {"../escape", "a/b", ".."}) {
    const std::string scenario = write_scenario(dir, tiny_scenario(name));
    const std::string error = error_of(scenario, (dir.path() / "out").string());
    EXPECT_EQ(error, scenario +
                         ": name: must not hold '/', '\\' or be '.' or '..' (it names the run "
                         "folder)")
        << name;
  }
  EXPECT_FALSE(fs::exists(dir.path() / "out"));
  EXPECT_FALSE(fs::exists(dir.path().parent_path() / "escape"));
}

}  // namespace
}  // namespace tidal::sim
