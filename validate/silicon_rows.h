// A measured end-to-end run (measured_runs.h) as a simulation: the same model, GPU, TP,
// precision and engine, a closed loop of the run's concurrency at its fixed input and output
// lengths, and the mean TTFT and TPOT tidal predicts for it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "perf/calibration.h"
#include "perf/step_time_model.h"
#include "sim/scenario.h"
#include "validate/measured_runs.h"

namespace tidal::validate {

// How the rows are simulated.
struct SiliconOptions {
  std::string configs_dir;              // Hugging Face configs, named <org>--<name>_config.json
  std::string kernel_db_dir;            // AIConfigurator's kernel tables (step_model kernel_db)
  std::string step_model = "roofline";  // roofline | kernel_db
  bool engine_presets = false;          // the row's engine preset (scheduler, overheads)
  // Requests per client. The clients start at once, as `vllm bench serve --max-concurrency`,
  // genai-perf and aiperf start them. measured.csv's origin benchmarks its engines with `aiperf
  // profile --concurrency C --num-requests C*20 --warmup-request-count C*2` (AIConfigurator,
  // tests/baseline/precutover_ref/*/bench_run.sh, commit 615040d: BENCH_MULTI_ROUND=20), and
  // aiperf waits for every warm-up response before its profiling phase starts all clients again
  // (aiperf docs/tutorials/warmup.md, "Grace Period"). The drained warm-up leaves nothing behind
  // that tidal models (its prompts are random, so no prefix hits), so a run is its 20 profiled
  // rounds, every one counted.
  int64_t requests_per_client = 20;
  // Whether each client's first request counts in the means. measured.csv does not say whether
  // the first burst (every client's prompt at once) was measured; when it is left out
  // (metrics.exclude_first_per_client) the means are those of the loop's later rounds.
  bool count_first_requests = true;
  // Whether the clients run staggered instead of in lockstep. With fixed lengths a deterministic
  // simulation keeps clients that start together in lockstep for ever (each round's prompts
  // prefilled as one burst, decodes never sharing a step with a prefill), where a real
  // benchmark's clients drift apart (timing noise) into a staggered steady state. Staggered:
  // the row is simulated twice, the second time with the clients' first requests spread over
  // the first run's mean end-to-end latency (closed_loop `start_spread_s`), so every client's
  // phase differs and no burst is left; nothing measured enters the spread.
  bool stagger_clients = false;
  // Whether an aggregated row's engine takes the batching limits AIConfigurator's generator
  // gives a benchmark run (silicon_rows.cpp, generated_agg_limits: the row's batch, vLLM and
  // TensorRT-LLM token budgets of that batch plus the prompt plus 1,500, SGLang mixed prefill
  // chunks of the prompt plus 1,500) instead of the engine preset's defaults. Off by default:
  // docs/validation.md, "Steps formed ahead, and the generator's benchmark rules", measures both.
  bool generated_limits = false;
};

struct PreparedRow {
  MeasuredRun run;
  // One pool (a disaggregated row: a prefill and a decode pool), one closed-loop workload.
  sim::Scenario scenario;
  std::vector<std::shared_ptr<const perf::StepTimeModel>> bases;  // [num pools] uncalibrated
  std::string engine;                                             // the row's engine
  std::string gpu;                                                // catalog name
  std::string model;                                              // the row's model
  // The model's architecture_identity (measured_repeats.h): rows of models that share it are
  // held out together.
  std::string architecture;
  bool stagger_clients = false;  // SiliconOptions::stagger_clients
  // The engine version the kernel tables were measured on (step_model kernel_db; else ""): a
  // run of another version is priced by kernels that are not quite its own.
  std::string kernel_tables_version;
};

struct RowPrediction {
  double ttft_ms = 0.0;  // mean over the measured requests
  double tpot_ms = 0.0;
  int64_t num_measured = 0;  // requests finished and not warm-up (0: the figures mean nothing)
};

// The row as a scenario, or the reason tidal cannot express it (inexpressible_reason, no config
// for its model, a config tidal refuses, a deployment that does not fit, no kernel tables for its
// GPU and engine): `reason` gets one line and the result is empty.
std::optional<PreparedRow> prepare_row(const MeasuredRun& run, const SiliconOptions& options,
                                       std::string* reason);

// Simulates the row, with the calibration applied when given.
RowPrediction predict_row(const PreparedRow& row, const perf::Calibration* calibration);

}  // namespace tidal::validate
