#include "validate/silicon_rows.h"

#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "sim/metrics.h"
#include "sim/simulator.h"

namespace tidal::validate {
namespace {

namespace fs = std::filesystem;

// "Qwen/Qwen3-32B" -> "<dir>/Qwen--Qwen3-32B_config.json".
std::string config_path(const std::string& dir, const std::string& model) {
  std::string stem = model;
  const size_t slash = stem.find('/');
  if (slash != std::string::npos) stem.replace(slash, 1, "--");
  return (fs::path(dir) / (stem + "_config.json")).string();
}

// measured.csv's precision as tidal's served weight dtype ("" keeps the checkpoint's).
std::optional<std::string> weight_dtype_of(const std::string& precision) {
  if (precision == "fp8" || precision == "fp4" || precision == "bf16" || precision == "int4") {
    return precision;
  }
  return std::nullopt;
}

nlohmann::json scenario_json(const MeasuredRun& run, const SiliconOptions& options,
                             const std::string& gpu) {
  nlohmann::json pool{{"name", "engine"},
                      {"model", config_path(options.configs_dir, run.model)},
                      {"gpu", gpu},
                      {"tp", run.tp},
                      {"num_replicas", 1}};
  // measured.csv counts as tidal does: tp x attention_dp GPUs, moe_tp x moe_ep of them.
  if (run.moe_ep > 1) pool["ep"] = run.moe_ep;
  if (run.attention_dp > 1) pool["attention_dp"] = run.attention_dp;
  if (const std::optional<std::string> dtype = weight_dtype_of(run.precision)) {
    pool["weight_dtype"] = *dtype;
  }
  if (options.engine_presets) pool["engine"] = run.engine;
  if (options.step_model == "kernel_db") {
    pool["perf"] = {{"kind", "kernel_db"}, {"dir", options.kernel_db_dir}};
    // The row says which kernels ran (e.g. nvfp4 MoE kernels for an mxfp4 checkpoint).
    if (!run.gemm_quant_mode.empty()) pool["perf"]["gemm_dtype"] = run.gemm_quant_mode;
    if (!run.moe_quant_mode.empty()) pool["perf"]["moe_dtype"] = run.moe_quant_mode;
  }
  // The benchmark served the row's whole prompt and output, whatever the engine's default
  // context; without a preset the scheduler must also take every client at once.
  pool["scheduler"] = {{"max_model_len", run.isl + run.osl}};
  // TensorRT-LLM bounds a prompt by max_num_tokens and a sequence by max_seq_len; tidal's
  // continuous policy (TensorRT-LLM's, without chunked context) takes a budget that holds the
  // longest sequence, so rows longer than its 8,192 get that budget.
  if (options.engine_presets && run.engine == "trtllm" && run.isl + run.osl > 8192) {
    pool["scheduler"]["max_num_batched_tokens"] = run.isl + run.osl;
  }
  if (!options.engine_presets) {
    pool["scheduler"]["policy"] = "chunked_prefill";
    pool["scheduler"]["max_num_seqs"] = std::max<int64_t>(256, run.concurrency);
  }
  // As the benchmark clients run: every client starts at once.
  nlohmann::json generator{{"kind", "closed_loop"},
                           {"concurrency", run.concurrency},
                           {"num_requests", run.concurrency * options.requests_per_client},
                           {"prompt", run.isl},
                           {"output", run.osl}};
  nlohmann::json scenario{{"name", run.id},
                          {"seed", 1},
                          {"workloads", {{{"name", "bench"}, {"generator", generator}}}},
                          {"fleet", {{"pools", {pool}}}},
                          {"output", {{"trace_max_slices", 0}}}};
  if (!options.count_first_requests) {
    scenario["metrics"] = {{"exclude_first_per_client", true}};
  }
  return scenario;
}

}  // namespace

std::optional<PreparedRow> prepare_row(const MeasuredRun& run, const SiliconOptions& options,
                                       std::string* reason) {
  if (const std::optional<std::string> why = inexpressible_reason(run)) {
    *reason = *why;
    return std::nullopt;
  }
  const std::string gpu = gpu_of_system(run.system);
  const std::string config = config_path(options.configs_dir, run.model);
  if (!fs::exists(config)) {
    *reason = "no config " + fs::path(config).filename().string();
    return std::nullopt;
  }
  try {
    PreparedRow row{
        run,     sim::load_scenario_text(scenario_json(run, options, gpu).dump(), run.where, ""),
        nullptr, run.engine,
        gpu,     run.model};
    const sim::PoolSpec& pool = row.scenario.pools[0];
    if (pool.model_spec.is_moe() && run.moe_tp != pool.deployment.moe_tp()) {
      *reason = fmt::format("MoE TP {} x EP {} is not the replica's {} GPUs (tp x attention_dp)",
                            run.moe_tp, run.moe_ep, pool.deployment.num_gpus());
      return std::nullopt;
    }
    row.base = pool.step_model;
    return row;
  } catch (const InputError& e) {
    // Without the row's location: reasons are counted by kind.
    std::string what = e.what();
    if (what.rfind(run.where + ": ", 0) == 0) what = what.substr(run.where.size() + 2);
    const size_t config_at = what.find(config);
    if (config_at != std::string::npos) {
      what.replace(config_at, config.size(), fs::path(config).filename().string());
    }
    *reason = what;
    return std::nullopt;
  }
}

RowPrediction predict_row(const PreparedRow& row, const perf::Calibration* calibration) {
  sim::Scenario scenario = row.scenario;
  sim::PoolSpec& pool = scenario.pools[0];
  if (calibration != nullptr) {
    pool.step_model = perf::make_calibrated_model(row.base, *calibration);
    pool.calibration = *calibration;
  }
  sim::RunResult result = sim::run_scenario(scenario);
  const sim::RunMetrics metrics = sim::compute_metrics(scenario, result);
  return {metrics.ttft.mean * 1e3, metrics.tpot.mean * 1e3, metrics.ttft.count};
}

}  // namespace tidal::validate
