// `tidal calibrate`: wiring of validate/calibrate_command to the command line.
#include <iostream>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "validate/calibrate_command.h"

namespace tidal::cli {

void add_calibrate_command(CLI::App& app) {
  auto command = std::make_shared<validate::CalibrateCommand>();
  command->silicon.step_model = "kernel_db";
  command->silicon.engine_presets = true;
  command->bench_defaults.engine = "vllm";
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "Fit per engine x GPU the step overhead, front-end time and GEMM/attention scales against "
      "measured end-to-end runs (docs/validation.md, \"Against real engines\")");
  cmd->add_option("--measured", command->measured,
                  "measured.csv rows, or one `vllm bench serve --save-result` JSON")
      ->required();
  cmd->add_option("--out", command->out, "calibration JSON to write")->required();
  cmd->add_option("--configs", command->silicon.configs_dir,
                  "folder of Hugging Face configs named <org>--<name>_config.json")
      ->required();
  cmd->add_option("--kernel-db", command->silicon.kernel_db_dir,
                  "AIConfigurator kernel tables (for --step-model kernel_db)");
  cmd->add_option("--step-model", command->silicon.step_model,
                  "kernel_db (default) or roofline: the model the coefficients sit on");
  cmd->add_option("--requests-per-client", command->silicon.requests_per_client,
                  "closed-loop requests per client of each simulated row")
      ->check(CLI::Range(int64_t{1}, int64_t{1000}));
  cmd->add_option("--count-first", command->silicon.count_first_requests,
                  "whether each client's first request counts in the means (false: warm-up)");
  cmd->add_option("--stagger", command->silicon.stagger_clients,
                  "simulate each row's clients staggered (starts spread over one request's "
                  "simulated latency) instead of in lockstep (default false)");
  cmd->add_option("--prior", command->fit.use_prior,
                  "pull the coefficients toward the engine preset's figures and the scales "
                  "toward 1 (default true; false: plain least squares)");
  cmd->add_option("--max-fit-rows", command->fit.max_fit_rows,
                  "rows per engine x GPU entering the fit (default 12)");
  cmd->add_option("--held-out", command->held_out,
                  "also fit each engine x GPU once per architecture without it and record how "
                  "the rows of the architecture left out are predicted (default false; one more "
                  "fit per architecture)");
  cmd->add_option("--threads", command->num_threads,
                  "engine x GPU groups fitted at once (default 1; the file is the same for any "
                  "number)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--model", command->bench_defaults.model, "vllm bench JSON: the model (HF id)");
  cmd->add_option("--system", command->bench_defaults.system,
                  "vllm bench JSON: the GPU as measured.csv names it (h100_sxm, h200_sxm, ...)");
  cmd->add_option("--tp", command->bench_defaults.tp, "vllm bench JSON: tensor parallelism");
  cmd->callback([command] {
    if (command->silicon.step_model != "kernel_db" && command->silicon.step_model != "roofline") {
      throw CLI::ValidationError("--step-model", "kernel_db or roofline");
    }
    validate::run_calibrate(*command, std::cout, &std::cerr);
  });
}

}  // namespace tidal::cli
