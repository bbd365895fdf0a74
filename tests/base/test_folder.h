// Helpers of the base tests: a fresh folder per test and whole-file reads.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace tidal::base::testing {

// An empty folder of its own for each test, under the system's temporary folder.
inline std::filesystem::path fresh_root(const std::string& test) {
  const auto root = std::filesystem::temp_directory_path() /
                    ("tidal_base_" + std::to_string(::getpid()) + "_" + test);
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root);
  return root;
}

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
