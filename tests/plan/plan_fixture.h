// A small scenario and search space for plan tests, written to a fresh temp folder.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/scratch_folder.h"

namespace tidal::plan::testing {

// One interactive Poisson workload (60 s) on a Llama-3-8B pool "gpus".
nlohmann::json small_scenario();

// The prefix of the plan tests' scratch folders (one per test, tests/scratch_folder.h).
inline const std::string kScratch = "tidal_plan";

std::string write_json(const std::filesystem::path& path, const nlohmann::json& value);
std::string read_text(const std::filesystem::path& path);

}  // namespace tidal::plan::testing
