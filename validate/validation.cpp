#include "validate/validation.h"

#include <algorithm>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "base/input_error.h"
#include "base/output_files.h"
#include "engine/engine.h"
#include "engine/profile/cpu_target.h"
#include "engine/profile/cuda_target.h"
#include "models/presets.h"
#include "perf/profiled_model.h"
#include "traces/format.h"
#include "traces/reader.h"
#include "validate/compare.h"
#include "validate/engine_side.h"
#include "validate/sim_side.h"
#include "validate/spec_calibration.h"
#include "validate/validation_json.h"

namespace tidal::validate {
namespace {

namespace fs = std::filesystem;

void write_text(const fs::path& path, const std::string& text) {
  base::write_output_text(path.string(), text);
}

void write_step_errors(const fs::path& path, const std::vector<StepPrediction>& steps) {
  std::string text = "step,num_seqs,num_tokens,measured_s,predicted_s,error_pct\n";
  for (size_t i = 0; i < steps.size(); ++i) {
    const StepPrediction& s = steps[i];
    text += fmt::format("{},{},{},{:.9f},{:.9f},{:.3f}\n", i, s.num_seqs, s.num_tokens,
                        s.measured_s, s.predicted_s, s.signed_pct);
  }
  write_text(path, text);
}

// Requests per second the simulated engine sustains: the same requests all arriving at once.
double simulated_capacity_rps(const SimInputs& inputs, std::vector<Request> requests) {
  for (Request& r : requests) r.arrival_s = 0.0;
  SimRun run = run_simulation(inputs, requests, "");
  if (run.metrics.duration_s <= 0.0 || run.metrics.num_finished == 0) {
    throw InputError(
        "--load: the simulator finished no request of the trace at once, so the "
        "capacity is unknown");
  }
  return static_cast<double>(run.metrics.num_finished) / run.metrics.duration_s;
}

// Requests per second of the trace as prepared at time scale 1.
double trace_rate_rps(const std::vector<Request>& requests) {
  if (requests.size() < 2 || requests.back().arrival_s <= requests.front().arrival_s) {
    throw InputError("--load: the trace needs at least two distinct arrival times");
  }
  return static_cast<double>(requests.size() - 1) /
         (requests.back().arrival_s - requests.front().arrival_s);
}

Comparison compare_runs(const LatencySamples& measured, const LatencySamples& predicted,
                        const engine::RunMetrics& measured_metrics,
                        const sim::RunMetrics& predicted_metrics) {
  return {compare_latencies(measured, predicted),
          compare_figures(measured_metrics, predicted_metrics)};
}

// The engine's spread: the repeat run as the "prediction" of the first.
Comparison compare_engine_runs(const EngineSide& first, const EngineSide& second) {
  Comparison c{compare_latencies(engine_samples(first), engine_samples(second)), {}};
  auto figure = [](const char* name, double a, double b) {
    return FigureComparison{name, a, b, signed_pct_error(b, a)};
  };
  c.figures = {figure("output_tokens_per_s", first.metrics.output_tokens_per_s,
                      second.metrics.output_tokens_per_s),
               figure("request_throughput_rps", first.metrics.request_throughput_rps,
                      second.metrics.request_throughput_rps),
               figure("makespan_s", first.metrics.duration_s, second.metrics.duration_s)};
  return c;
}

}  // namespace

profile::ProfileOptions profile_options_for(const ValidateOptions& options) {
  profile::ProfileOptions po = options.profile;
  po.model = options.run.model;
  po.model_seed = options.run.model_seed;
  po.engine = options.run.config;
  const sched::SchedulerConfig& sc = options.run.config.scheduler;
  po.max_batch_size = std::min<int64_t>(po.max_batch_size, std::max<int32_t>(1, sc.max_num_seqs));
  po.max_num_tokens =
      std::min<int64_t>(po.max_num_tokens, std::max<int64_t>(1, sc.max_num_batched_tokens));
  return po;
}

perf::Profile measure_profile(const ValidateOptions& options, const profile::ProgressFn& progress) {
  return options.run.config.backend == engine::BackendKind::cuda
             ? profile::run_cuda_profile(profile_options_for(options), progress)
             : profile::run_profile(profile_options_for(options), progress);
}

ValidationResult run_validation(const ValidateOptions& options,
                                const profile::ProgressFn& progress) {
  engine::EngineRunArgs args = options.run;
  const models::ModelConfig model_config = models::resolve_config(args.model, "--model");
  engine::check_config(args.config, model_config);  // before a profile is measured
  const fs::path dir(options.out_dir);
  fs::create_directories(dir);

  traces::ReadOptions read_options;
  if (!args.trace_format.empty())
    read_options.format = traces::parse_format_name(args.trace_format);
  const std::vector<Request> source = traces::read_trace(args.trace, read_options);

  // The step-time model: a given profile, or one measured now with the same engine config.
  std::string profile_path = options.profile_path;
  perf::Profile profile;
  if (profile_path.empty()) {
    profile = measure_profile(options, progress);
    profile_path = (dir / "profile.json").string();
    perf::save_profile(profile, profile_path);
  } else {
    profile = perf::load_profile(profile_path);
  }
  const perf::Deployment deployment = profile::deployment_for(args.config);
  const perf::GpuSpec device = args.config.backend == engine::BackendKind::cuda
                                   ? profile::cuda_device_spec(profile.provenance.device)
                                   : profile::cpu_device_spec(profile.provenance.device);
  std::shared_ptr<const perf::StepTimeModel> step_model =
      perf::make_profiled_model(profile, profile::model_spec_for(model_config, args.model), device,
                                deployment, "--profile " + profile_path);

  SimInputs sim_inputs;
  sim_inputs.name = fs::path(args.trace).stem().string();
  sim_inputs.trace_path = args.trace;
  sim_inputs.model_name = args.model;
  sim_inputs.device_name = device.name;
  sim_inputs.profile_path = profile_path;
  sim_inputs.deployment = deployment;
  sim_inputs.step_model = step_model;
  sim_inputs.timeline_interval_s = static_cast<double>(args.replay.timeline_interval_ns) * 1e-9;
  // The capacity behind --load is that of plain decoding: the acceptance the simulator's
  // speculation is calibrated with is only known once the engine has run.
  sim_inputs.scheduler = engine::effective_scheduler_config(args.config, model_config);
  sim_inputs.scheduler.num_speculative_tokens = 0;
  sim_inputs.kv = {args.config.block_size, engine::num_gpu_blocks_for(args.config, model_config),
                   args.config.num_cpu_blocks, args.config.enable_prefix_caching};

  std::optional<double> capacity_rps;
  if (options.load) {
    if (!(*options.load > 0.0)) throw InputError("--load: must be > 0");
    engine::ReplayOptions unscaled = args.replay;
    unscaled.time_scale = 1.0;
    const std::vector<Request> at_scale_1 = engine::prepare_requests(source, unscaled);
    capacity_rps = simulated_capacity_rps(sim_inputs, at_scale_1);
    args.replay.time_scale = trace_rate_rps(at_scale_1) / (*options.load * *capacity_rps);
    progress(
        fmt::format("validate: simulated capacity {:.2f} requests/s; load {} -> time scale "
                    "{:.4f}",
                    *capacity_rps, *options.load, args.replay.time_scale));
  }
  const std::vector<Request> requests = engine::prepare_requests(source, args.replay);

  progress(fmt::format("validate: engine run of {} requests", requests.size()));
  const EngineSide measured = run_engine_side(args, requests, (dir / "engine").string());
  std::optional<EngineSide> repeat;
  if (options.repeat_engine) {
    progress("validate: engine repeat run");
    repeat = run_engine_side(args, requests, (dir / "engine-repeat").string());
  }

  // The simulator with the engine's actual scheduler and KV pool; n-gram speculation with k as
  // the engine ran it, acceptance and draft cost calibrated from the engine side. Draft-model
  // speculation is not calibrated: the simulator then runs plain decoding.
  sim_inputs.scheduler = measured.scheduler;
  std::optional<SpecCalibration> calibration;
  const engine::SpecConfig& spec = args.config.spec;
  if (spec.method == engine::SpecMethod::ngram && spec.num_spec_tokens > 0) {
    calibration = calibrate_ngram(spec, measured.spec, measured.run.steps, profile);
    sim_inputs.speculative = calibration->speculative;
  } else {
    sim_inputs.scheduler.num_speculative_tokens = 0;
  }
  sim_inputs.kv = measured.kv;
  sim_inputs.memory.weight_bytes_per_gpu =
      static_cast<double>(measured.memory.weight_bytes_per_rank);
  sim_inputs.memory.kv_bytes_per_token_per_gpu =
      static_cast<double>(measured.memory.kv_bytes_per_token_per_rank);
  sim_inputs.memory.kv_bytes_per_token_all_stages = sim_inputs.memory.kv_bytes_per_token_per_gpu;
  sim_inputs.memory.kv_cache_bytes_per_gpu =
      static_cast<double>(measured.memory.kv_arena_bytes_per_rank);
  sim_inputs.memory.num_kv_blocks = measured.kv.num_gpu_blocks;
  progress("validate: simulator run");
  SimRun predicted = run_simulation(sim_inputs, measured.run.requests, (dir / "sim").string());

  const Comparison comparison = compare_runs(engine_samples(measured), sim_samples(predicted),
                                             measured.metrics, predicted.metrics);
  const std::vector<StepPrediction> step_predictions =
      predict_steps(measured.run.steps, *step_model, sim_inputs.speculative);
  write_step_errors(dir / "step_errors.csv", step_predictions);
  const StepErrorSummary steps = summarize_steps(step_predictions);
  std::optional<Comparison> noise;
  if (repeat) noise = compare_engine_runs(measured, *repeat);

  const std::string title =
      options.title.empty() ? fmt::format("{} on {}", sim_inputs.name, args.model) : options.title;
  nlohmann::ordered_json notes = nlohmann::ordered_json::array();
  if (calibration) {
    notes.push_back(calibration_note(*calibration));
  } else if (spec.method != engine::SpecMethod::none) {
    notes.push_back(
        "the simulator ran plain decoding: draft-model speculation is not calibrated (only "
        "n-gram drafting is), so request metrics compare the engine with drafting against the "
        "simulator without it; per-step error uses the engine's own plans (verification steps "
        "included)");
  }
  const sched::SchedulerConfig& sc = measured.scheduler;
  ValidationResult result;
  nlohmann::ordered_json& j = result.json;
  j["kind"] = "tidal-validation";
  j["format"] = "tidal-validation-v1";
  j["title"] = title;
  j["measured_run"] = "engine";
  j["predicted_run"] = "sim";
  j["case"] = {
      {"backend", engine::backend_kind_name(args.config.backend)},
      {"model", args.model},
      {"model_source", measured.model_source},
      {"trace", args.trace},
      {"num_requests", static_cast<int64_t>(requests.size())},
      {"policy", sc.policy},
      {"max_num_seqs", sc.max_num_seqs},
      {"max_num_batched_tokens", sc.max_num_batched_tokens},
      {"tp", args.config.tp},
      {"threads", args.config.num_threads},
      {"quant", models::quant_spec_name(args.config.quant)},
      {"kv_dtype", kernels::kv_dtype_name(args.config.kv_dtype)},
      {"prefix_caching", measured.kv.enable_prefix_caching},
      {"spec", engine::spec_config_name(args.config.spec)},
      {"sim_speculative", calibration ? to_json(*calibration) : nlohmann::ordered_json()},
      {"num_gpu_blocks", measured.kv.num_gpu_blocks},
      {"time_scale", args.replay.time_scale},
      {"load", options.load ? nlohmann::ordered_json(*options.load) : nlohmann::ordered_json()},
      {"capacity_rps",
       capacity_rps ? nlohmann::ordered_json(*capacity_rps) : nlohmann::ordered_json()},
      {"profile", profile_path},
  };
  j["metrics"] = metric_rows(comparison);
  const nlohmann::ordered_json compared = comparison_json(comparison);
  j["latency"] = compared["latency"];
  j["run"] = compared["run"];
  j["step_duration"] = to_json(steps);
  j["step_duration"]["file"] = "step_errors.csv";
  j["targets"] = targets_json(comparison, steps);
  if (noise) {
    const nlohmann::ordered_json n = comparison_json(*noise);
    j["noise"] = {{"repeat_run", "engine-repeat"}, {"latency", n["latency"]}, {"run", n["run"]}};
  } else {
    j["noise"] = nullptr;
  }
  j["engine"] = {{"num_finished", measured.metrics.num_finished},
                 {"num_rejected", measured.metrics.num_rejected},
                 {"num_preemptions", measured.metrics.num_preemptions},
                 {"num_prefix_hit_tokens", measured.metrics.num_prefix_hit_tokens},
                 {"num_steps", static_cast<int64_t>(measured.run.steps.size())},
                 {"spec_acceptance_rate", measured.spec.acceptance_rate()},
                 {"wall_s", measured.run.wall_s},
                 {"cpu_share", measured.cpu_share}};
  j["sim"] = {{"num_finished", predicted.metrics.num_finished},
              {"num_rejected", predicted.metrics.num_rejected},
              {"num_preemptions", predicted.metrics.num_preemptions},
              {"num_prefix_hit_tokens", predicted.metrics.num_prefix_hit_tokens},
              {"num_steps", predicted.result.num_steps},
              {"spec_acceptance_rate",
               predicted.metrics.fleet.spec_acceptance_rate
                   ? nlohmann::ordered_json(*predicted.metrics.fleet.spec_acceptance_rate)
                   : nlohmann::ordered_json()}};
  j["notes"] = notes;

  result.table = format_table(title, comparison, steps, noise);
  result.table += fmt::format("engine CPU share during the replay: {:.2f} (CPU s / wall s)\n",
                              measured.cpu_share);
  write_text(dir / "validation.json", j.dump(2) + "\n");
  write_text(dir / "validation.txt", result.table);
  return result;
}

}  // namespace tidal::validate
