// Helpers shared by the traces tests: real trace paths and a scratch folder.
#pragma once

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "tests/scratch_folder.h"

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

// A scratch folder tidal_traces_test_<pid>_<random>, removed with everything in it at scope
// exit, and files in it.
class ScratchDir : public ScratchFolder {
 public:
  ScratchDir() : ScratchFolder("tidal_traces_test", std::to_string(std::random_device{}())) {}
  std::string file(const std::string& name) const { return (path() / name).string(); }
  std::string write(const std::string& name, const std::string& content) const {
    std::ofstream(file(name), std::ios::binary) << content;
    return file(name);
  }
};

}  // namespace tidal::traces::testing
