// A test's scratch folder under the system's temporary folder, gone when the test ends.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace tidal {

// Holds the path of <temp>/<prefix>_<pid>_<name>: made fresh and empty by the constructor (what
// an earlier process of the same pid left there is removed), removed with everything in it by the
// destructor, whether the test passed or failed. The prefix says which suite made the folder, the
// name which test; the pid keeps concurrent runs of a suite apart.
class ScratchFolder {
 public:
  ScratchFolder(const std::string& prefix, const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              (prefix + "_" + std::to_string(::getpid()) + "_" + name)) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  ~ScratchFolder() {
    std::error_code ignored;  // a folder that cannot go is no reason to fail a test
    std::filesystem::remove_all(path_, ignored);
  }

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace tidal
