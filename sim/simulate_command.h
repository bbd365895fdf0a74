// What `tidal simulate` does, as a library call: load a scenario (or the built-in default),
// run it, write the run folder, and return the text to print.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

namespace tidal::sim {

struct SimulateOptions {
  std::optional<std::string> scenario_path;  // empty: the built-in default scenario
  std::optional<std::string> out_dir;        // empty: out/<scenario name>
  std::optional<uint64_t> seed;              // overrides the scenario's seed
  bool show_progress = true;                 // a progress bar on a terminal for long runs
  bool verbose = false;                      // also a line with events/s and requests/s
  bool step_by_step = false;                 // no repeated decode steps (Scenario::step_by_step)
  // Non-zero (a signal's number) stops the run after the event in flight; no folder is written
  // and an earlier run there stays as it was. Null: never stops.
  const std::atomic<int>* stop_signal = nullptr;
};

// Returns the summary table plus a line with the wall time and the folder written; empty when
// `stop_signal` stopped the run. InputError for any bad input.
std::string run_simulate_command(const SimulateOptions& options);

}  // namespace tidal::sim
