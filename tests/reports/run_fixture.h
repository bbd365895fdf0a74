// Test helpers: small simulated run folders (written by the simulator itself), and a check
// that an HTML/SVG text is well-formed as XML tags go.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/scratch_folder.h"

namespace tidal::reports::testing {

// A two-tenant, two-class scenario: `num_replicas` Llama-3-8B replicas on H100, 90 s of
// Poisson arrivals. Deterministic for a seed.
nlohmann::json small_scenario(int num_replicas, const std::string& name);

// Simulates `scenario` and writes its run folder to `dir` (created); returns dir.
std::string write_run_folder(const nlohmann::json& scenario, const std::filesystem::path& dir);

// The prefix of the reports tests' scratch folders (one per test, tests/scratch_folder.h).
inline const std::string kScratch = "tidal_reports";

std::string read_text(const std::filesystem::path& path);

// Writes the report of one run folder under `out` and returns its report.json section `id`, or
// null.
nlohmann::json section_of(const std::string& run_dir, const std::filesystem::path& out,
                          const std::string& id);
// Key figure texts of a report.json section: label -> text.
std::map<std::string, std::string> figures_of(const nlohmann::json& section);

// Empty when every start tag has its end tag in order (void tags written as <x/>; comments,
// <!DOCTYPE> and text skipped); else where the nesting breaks.
std::string tag_balance_error(const std::string& markup);

}  // namespace tidal::reports::testing
