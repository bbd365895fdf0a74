// The folder rules of DESIGN.md ("Layout"): which folders a folder's sources may include.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// Every `#include "<folder>/..."` of the files under `folder` naming one of `forbidden`.
std::vector<std::string> forbidden_includes(const std::string& folder,
                                            const std::vector<std::string>& forbidden) {
  std::vector<std::string> found;
  const fs::path root = fs::path(TIDAL_SOURCE_DIR) / folder;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(root)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp" && ext != ".cu")) continue;
    std::ifstream in(entry.path());
    std::string line;
    for (int line_number = 1; std::getline(in, line); ++line_number) {
      if (line.rfind("#include \"", 0) != 0) continue;
      const std::string target = line.substr(10);
      for (const std::string& prefix : forbidden) {
        if (target.rfind(prefix + "/", 0) == 0) {
          found.push_back(entry.path().string() + ":" + std::to_string(line_number) + ": " + line);
        }
      }
    }
  }
  return found;
}

TEST(Layout, EngineUsesPerfNotTheSimulator) {
  EXPECT_EQ(forbidden_includes("engine", {"sim", "ui", "cli"}), std::vector<std::string>{});
}

TEST(Layout, PerfUsesNeitherSimulatorNorEngine) {
  EXPECT_EQ(
      forbidden_includes("perf", {"sim", "engine", "kernels", "models", "traces", "ui", "cli"}),
      std::vector<std::string>{});
}

TEST(Layout, SimulatorStaysOffKernelsModelsAndCuda) {
  EXPECT_EQ(forbidden_includes("sim", {"kernels", "models", "engine/profile", "ui", "cli"}),
            std::vector<std::string>{});
}

TEST(Layout, SchedulerAndKvManagerStayPlainCpp) {
  for (const char* folder : {"engine/sched", "engine/kv"}) {
    SCOPED_TRACE(folder);
    EXPECT_EQ(forbidden_includes(folder, {"kernels", "models", "sim", "perf", "ui", "cli"}),
              std::vector<std::string>{});
  }
}

TEST(Layout, BottomFoldersIncludeNoOtherProjectFolder) {
  const std::vector<std::string> above = {"sim",  "perf", "engine",  "models", "validate",
                                          "plan", "ui",   "reports", "cli",    "kernels"};
  EXPECT_EQ(forbidden_includes("traces", above), std::vector<std::string>{});
  std::vector<std::string> above_kernels = above;
  above_kernels.back() = "traces";
  EXPECT_EQ(forbidden_includes("kernels", above_kernels), std::vector<std::string>{});
  std::vector<std::string> above_base = above_kernels;
  above_base.push_back("kernels");
  EXPECT_EQ(forbidden_includes("base", above_base), std::vector<std::string>{});
}

}  // namespace
