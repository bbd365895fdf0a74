// `tidal simulate [scenario.json] [--out DIR] [--seed N] [--quiet] [--verbose] [--step-by-step]`:
// wiring of sim/ to the command line.
#include <cstdio>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "engine/stop_signals.h"
#include "sim/simulate_command.h"

namespace tidal::cli {

void add_simulate_command(CLI::App& app) {
  struct Args {
    std::string scenario;
    std::string out;
    uint64_t seed = 0;
    bool quiet = false;
    bool verbose = false;
    bool step_by_step = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "simulate", "Simulate a scenario (default: the built-in one-hour mix on 4 x H100)");
  cmd->add_option("scenario", args->scenario, "scenario JSON file (docs/scenario.md)");
  CLI::Option* out =
      cmd->add_option("--out", args->out, "run output folder (default: out/<scenario name>)");
  // An unsigned option would read -1 as 2^64 - 1.
  const CLI::Validator non_negative(
      [](std::string& text) { return text.starts_with('-') ? "must be >= 0, got " + text : ""; },
      "INT >= 0");
  CLI::Option* seed =
      cmd->add_option("--seed", args->seed, "override the scenario's seed")->check(non_negative);
  cmd->add_flag("--quiet", args->quiet, "no progress bar");
  cmd->add_flag("--verbose", args->verbose, "also print events/s and simulated requests/s");
  cmd->add_flag("--step-by-step", args->step_by_step,
                "run every decode step through the scheduler's full update and schedule (slower; "
                "the outputs must not change)");
  cmd->callback([args, out, seed] {
    sim::SimulateOptions options;
    if (!args->scenario.empty()) options.scenario_path = args->scenario;
    if (out->count() > 0) options.out_dir = args->out;  // `--out ""` is an error there
    if (seed->count() > 0) options.seed = args->seed;
    options.show_progress = !args->quiet;
    options.verbose = args->verbose;
    options.step_by_step = args->step_by_step;
    // SIGINT / SIGTERM: stop after the event in flight and write nothing (an earlier run in
    // the folder stays); a second signal ends tidal at once (engine/stop_signals.h).
    const engine::StopOnSignals stop_on_signals;
    options.stop_signal = &stop_on_signals.stop_signal();
    const std::string text = sim::run_simulate_command(options);
    if (text.empty()) {  // the run was stopped
      const int signal_number = stop_on_signals.stop_signal().load();
      std::fprintf(stderr, "tidal: stopped by %s: no run folder written\n",
                   engine::signal_name(signal_number).c_str());
      throw CLI::RuntimeError(128 + signal_number);  // the shell's code for that signal
    }
    std::fputs(text.c_str(), stdout);
  });
}

}  // namespace tidal::cli
