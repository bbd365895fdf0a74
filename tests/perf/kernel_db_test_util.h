// Helpers the kernel-table model's suites share: a temporary folder, files written into it, the
// InputError a call must throw, the H200 and a kernel-database spec.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <utility>

#include "base/input_error.h"
#include "perf/gpu_catalog.h"
#include "perf/kernel_db_folders.h"
#include "tests/scratch_folder.h"

namespace tidal::perf::kdb_test {

namespace fs = std::filesystem;

// A scratch folder tidal-kdb_<pid>_<name>, removed by the destructor.
class TempDir : public ScratchFolder {
 public:
  explicit TempDir(const std::string& name) : ScratchFolder("tidal-kdb", name) {}
};

inline void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// Expects `body` to throw an InputError whose message holds every one of `parts`.
template <typename Body>
void expect_input_error(Body body, std::initializer_list<std::string> parts) {
  try {
    body();
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& error) {
    for (const std::string& part : parts) {
      EXPECT_NE(std::string(error.what()).find(part), std::string::npos)
          << "message: " << error.what() << "\nmissing: " << part;
    }
  }
}

inline const GpuSpec& h200() {
  return find_gpu("H200", "t");
}

inline KernelDbSpec spec_of(const fs::path& dir, std::string engine = "vllm",
                            std::string version = "") {
  return {dir.string(), std::move(engine), std::move(version), "", ""};
}

}  // namespace tidal::perf::kdb_test
