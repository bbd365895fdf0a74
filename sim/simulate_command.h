// What `tidal simulate` does, as a library call: load a scenario (or the built-in default),
// run it, write the run folder, and return the text to print.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tidal::sim {

struct SimulateOptions {
  std::optional<std::string> scenario_path;  // empty: the built-in default scenario
  std::optional<std::string> out_dir;        // empty: out/<scenario name>
  std::optional<uint64_t> seed;              // overrides the scenario's seed
  bool show_progress = true;                 // a progress bar on a terminal for long runs
};

// Returns the summary table plus a line with the wall time and the folder written.
// InputError for any bad input.
std::string run_simulate_command(const SimulateOptions& options);

}  // namespace tidal::sim
