// Helpers of the base tests: their scratch folders' prefix and whole-file reads.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/scratch_folder.h"

namespace tidal::base::testing {

// The prefix of the base tests' scratch folders (one per test, tests/scratch_folder.h).
inline const std::string kScratch = "tidal_base";

inline std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The names in `dir`, sorted (hidden temporaries included).
inline std::vector<std::string> names_in(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace tidal::base::testing
