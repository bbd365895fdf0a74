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
#include "sim/run_output_stream.h"
#include "sim/simulator.h"
#include "sim/summary_table.h"
#include "traces/reader.h"

namespace tidal::sim {
namespace {

// Passes reports on to the progress bar; asks the run to stop once `*stop_signal` is set.
class StopOnFlag final : public ProgressSink {
 public:
  StopOnFlag(ProgressSink& next, const std::atomic<int>* stop_signal)
      : next_(next), stop_signal_(stop_signal) {}
  void update(const ProgressReport& report) override { next_.update(report); }
  bool stop_requested() const override {
    return stop_signal_ != nullptr && stop_signal_->load() != 0;
  }

 private:
  ProgressSink& next_;
  const std::atomic<int>* stop_signal_;
};

}  // namespace

std::string run_simulate_command(const SimulateOptions& options) {
  Scenario scenario =
      options.scenario_path ? load_scenario_file(*options.scenario_path) : load_default_scenario();
  if (options.seed) scenario.set_seed(*options.seed);
  scenario.step_by_step = options.step_by_step;
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
  ProgressBar bar(options.show_progress);
  StopOnFlag progress(bar, options.stop_signal);
  // requests.csv is written as requests end, into a temporary folder swapped in at the end.
  RunOutputStream output(out_dir, scenario, &progress);
  const auto run_start = std::chrono::steady_clock::now();
  RunResult result = simulate(scenario, std::move(table), &output);
  const double run_wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
  bar.finish();
  if (result.stopped_early) return "";  // `output` removes its temporary folder
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const RunMetrics metrics = compute_metrics(scenario, result);
  output.finish(result, metrics);
  std::string text = format_summary_table(scenario, metrics);
  text += format_kv_transfer_line(scenario, result);
  text += fmt::format("run         {:.2f} s wall ({}x real time), {} events, {} steps\n", wall_s,
                      base::format_number(wall_s > 0 ? metrics.duration_s / wall_s : 0.0, 0),
                      base::format_count(result.num_events), base::format_count(result.num_steps));
  if (options.verbose) {
    const double per_s = run_wall_s > 0 ? 1.0 / run_wall_s : 0.0;
    text += fmt::format(
        "speed       {} events/s, {} requests/s, {} steps/s ({:.3f} s in the event loop)\n",
        base::format_number(static_cast<double>(result.num_events) * per_s, 0),
        base::format_number(static_cast<double>(result.records.size()) * per_s, 0),
        base::format_number(static_cast<double>(result.num_steps) * per_s, 0), run_wall_s);
  }
  text += fmt::format("wrote       {}/ (summary.json{}{}{})\n", out_dir,
                      scenario.output.requests_csv ? ", requests.csv" : "",
                      scenario.output.timeline_csv ? ", timeline.csv" : "",
                      scenario.output.trace_json ? ", trace.json" : "");
  return text;
}

}  // namespace tidal::sim
