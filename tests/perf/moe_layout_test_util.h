// Helpers the expert-parallel and expert-skew suites share: the H200, a parallel layout, and
// DeepSeek-V3 with AIConfigurator's H200 SGLang tables from the shared data.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "perf/expert_load.h"
#include "perf/gpu_catalog.h"
#include "perf/hf_config.h"
#include "perf/memory_plan.h"

namespace tidal::perf::moe_test {

inline const GpuSpec& h200() {
  return find_gpu("H200", "test");
}

inline Deployment layout(int32_t tp, int32_t attention_dp, int32_t ep, ExpertLoad load = {}) {
  Deployment d;
  d.tp = tp;
  d.attention_dp = attention_dp;
  d.ep = ep;
  d.expert_load = std::move(load);
  return d;
}

// DeepSeek-V3's config and the folder of AIConfigurator's kernel tables, when the shared data
// holds both (its H200 SGLang 0.5.14 tables among them).
struct SharedDeepSeekV3 {
  std::string kernel_db_dir;
  ModelSpec model;
};

inline std::optional<SharedDeepSeekV3> shared_deepseek_v3() {
  const std::string dir = std::string(TIDAL_SHARED_DIR) + "/profiles/aiconfigurator";
  const std::string config =
      std::string(TIDAL_SHARED_DIR) + "/models/hf-configs/deepseek-ai--DeepSeek-V3_config.json";
  if (!std::filesystem::is_directory(dir + "/h200_sxm/sglang-0.5.14") ||
      !std::filesystem::exists(config)) {
    return std::nullopt;
  }
  return SharedDeepSeekV3{dir, load_hf_config(config)};
}

#define SKIP_WITHOUT_SHARED_DEEPSEEK_V3(shared)                                      \
  if (!(shared)) {                                                                   \
    GTEST_SKIP() << TIDAL_SHARED_DIR << "/profiles/aiconfigurator or DeepSeek-V3's " \
                 << "config absent";                                                 \
  }

}  // namespace tidal::perf::moe_test
