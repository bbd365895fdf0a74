#include "sim/simulate_command.h"

#include <chrono>

#include <fmt/format.h>

#include "sim/default_scenario.h"
#include "sim/metrics.h"
#include "sim/progress_bar.h"
#include "sim/run_output.h"
#include "sim/simulator.h"
#include "sim/summary_table.h"

namespace tidal::sim {

std::string run_simulate_command(const SimulateOptions& options) {
  Scenario scenario =
      options.scenario_path ? load_scenario_file(*options.scenario_path) : load_default_scenario();
  if (options.seed) scenario.set_seed(*options.seed);
  const std::string out_dir = options.out_dir.value_or("out/" + scenario.name);

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
  text += fmt::format("run         {:.2f} s wall ({:.0f}x real time), {} events, {} steps\n",
                      wall_s, wall_s > 0 ? metrics.duration_s / wall_s : 0.0, result.num_events,
                      result.num_steps);
  text += fmt::format("wrote       {}/ (summary.json{}{}{})\n", out_dir,
                      scenario.output.requests_csv ? ", requests.csv" : "",
                      scenario.output.timeline_csv ? ", timeline.csv" : "",
                      scenario.output.trace_json ? ", trace.json" : "");
  return text;
}

}  // namespace tidal::sim
