// `tidal plan SCENARIO --slo ... --search SPACE.json`: wiring of plan/ to the command line.
#include <cstdio>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "plan/plan_runner.h"

namespace tidal::cli {

void add_plan_command(CLI::App& app) {
  auto options = std::make_shared<plan::PlanOptions>();
  auto quiet = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "plan",
      "Search configurations of a scenario's pool for the cheapest one meeting an SLO, and the "
      "Pareto frontier of cost vs p99 latency (threads; MPI ranks under mpirun; resumable)");
  cmd->add_option("scenario", options->scenario_path, "scenario JSON file")->required();
  cmd->add_option("--search", options->space_path, "search space JSON (docs/plan.md)")->required();
  cmd->add_option("--slo", options->slo,
                  "SLO target, repeatable, all must hold: [CLASS:]METRIC<=VALUE or >=VALUE, "
                  "e.g. p99_ttft<=1s, interactive:p90_e2e<=30s, attainment>=99%")
      ->required();
  cmd->add_option("--mode", options->mode,
                  "cost: simulate the trace, rank by its dollars; capacity: find each "
                  "candidate's largest rate scale meeting the SLO, rank by $/1M tokens")
      ->capture_default_str();
  cmd->add_option("--latency", options->latency, "frontier latency axis: ttft, tpot or e2e")
      ->capture_default_str();
  cmd->add_option("--out", options->out_dir, "output folder (default: out/plan-<scenario name>)")
      ->check(kNonEmptyFolder);
  cmd->add_option("--threads", options->num_threads,
                  "worker threads per process (default: every hardware thread)");
  cmd->add_flag("--quiet", *quiet, "no progress line");
  cmd->callback([options, quiet] {
    options->progress = !*quiet;
    const plan::PlanRun run = plan::run_plan(*options);
    if (run.is_root) std::fputs(plan::plan_summary_text(run).c_str(), stdout);
  });
}

}  // namespace tidal::cli
