#include "sim/simulate_command.h"

#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "base/input_error.h"
#include "base/number_format.h"
#include "base/run_folder.h"
#include "sim/default_scenario.h"
#include "sim/kv_transfer_summary.h"
#include "sim/metrics.h"
#include "sim/progress_bar.h"
#include "sim/run_output.h"
#include "sim/simulator.h"
#include "sim/summary_table.h"
#include "traces/reader.h"

namespace tidal::sim {

std::string run_simulate_command(const SimulateOptions& options) {
  Scenario scenario =
      options.scenario_path ? load_scenario_file(*options.scenario_path) : load_default_scenario();
  if (options.seed) scenario.set_seed(*options.seed);
  if (options.out_dir && options.out_dir->empty()) {
    throw InputError("--out: must name a folder (got an empty path)");
  }
  const std::string out_dir = options.out_dir.value_or("out/" + scenario.name);
  // A folder that cannot take the run is refused before the run, not after it.
  base::check_run_folder_target(out_dir);
  for (const WorkloadSpec& w : scenario.workloads) {  // lengths-only traces: said once, here
    traces::ReadOptions read;
    read.format = w.trace ? w.trace->format : std::nullopt;
    if (w.trace && !traces::trace_has_arrival_times(w.trace->resolved_path, read)) {
      std::fputs(fmt::format("tidal: note: workload {}: {} has no arrival times (lengths only): "
                             "every request arrives at t = {} s\n",
                             w.name, w.trace->path, w.start_s)
                     .c_str(),
                 stderr);
    }
  }

  const auto start = std::chrono::steady_clock::now();
  RequestTable table = load_workloads(scenario);
  ProgressBar progress(options.show_progress);
  RunResult result = simulate(scenario, std::move(table), &progress);
  progress.finish();
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const RunMetrics metrics = compute_metrics(scenario, result);
  write_run_output(out_dir, scenario, result, metrics);
  std::string text = format_summary_table(scenario, metrics);
  text += format_kv_transfer_line(scenario, result);
  text += fmt::format("run         {:.2f} s wall ({}x real time), {} events, {} steps\n", wall_s,
                      base::format_number(wall_s > 0 ? metrics.duration_s / wall_s : 0.0, 0),
                      base::format_count(result.num_events), base::format_count(result.num_steps));
  text += fmt::format("wrote       {}/ (summary.json{}{}{})\n", out_dir,
                      scenario.output.requests_csv ? ", requests.csv" : "",
                      scenario.output.timeline_csv ? ", timeline.csv" : "",
                      scenario.output.trace_json ? ", trace.json" : "");
  return text;
}

}  // namespace tidal::sim
