// Helpers shared by the traces tests: real trace paths and a scratch folder.
#pragma once

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace tidal::traces::testing {

inline std::string shared_trace(const std::string& relative_path) {
  return std::string(TIDAL_SHARED_DIR) + "/traces/" + relative_path;
}

inline const std::string kAzureConv = "azure2023/AzureLLMInferenceTrace_conv.csv";
inline const std::string kAzureCode = "azure2023/AzureLLMInferenceTrace_code.csv";
inline const std::string kMooncake = "mooncake/conversation_trace.jsonl";
inline const std::string kVidurConv = "vidur/splitwise_conv.csv";
inline const std::string kVidurArxiv =
    "vidur/arxiv_summarization_stats_llama2_tokenizer_filtered_v2.csv";

// A fresh folder under the system temp dir, removed with everything in it at scope exit.
class ScratchDir {
 public:
  ScratchDir() {
    std::random_device entropy;
    path_ = std::filesystem::temp_directory_path() /
            ("tidal_traces_test_" + std::to_string(entropy()) + std::to_string(entropy()));
    std::filesystem::create_directories(path_);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string write(const std::string& name, const std::string& content) const {
    std::ofstream(file(name), std::ios::binary) << content;
    return file(name);
  }

 private:
  std::filesystem::path path_;
};

}  // namespace tidal::traces::testing
