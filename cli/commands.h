// Each subcommand registers itself on the top-level app; cli/ holds wiring only, no logic.
#pragma once

#include <CLI/CLI.hpp>

namespace tidal::cli {

void add_trace_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_plan_command(CLI::App& app);
void add_model_command(CLI::App& app);
void add_simulate_command(CLI::App& app);
void add_dash_command(CLI::App& app);
void add_engine_command(CLI::App& app);
void add_profile_command(CLI::App& app);
void add_validate_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);

// For an --out option: an empty path is an error ("--out: must name a folder").
inline const CLI::Validator kNonEmptyFolder(
    [](std::string& path) { return path.empty() ? "must name a folder (got an empty path)" : ""; },
    "DIR");

}  // namespace tidal::cli
