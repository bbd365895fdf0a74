// What the ui tests share: the small scenario they run and per-process scratch folders.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace tidal::ui::test_support {

inline const std::string kSmallScenario =
    std::string(TIDAL_SOURCE_DIR) + "/tests/ui/small_scenario.json";

// An empty folder <temp>/<prefix>_<pid>/<name> (what was there is removed): per process, so
// that concurrent runs of a suite never share one.
inline std::filesystem::path fresh_dir(const std::string& prefix, const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / (prefix + "_" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace tidal::ui::test_support
