#include "validate/silicon_rows.h"

#include <algorithm>
#include <filesystem>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "perf/engine_preset.h"
#include "perf/gpu_catalog.h"
#include "sim/metrics.h"
#include "sim/simulator.h"
#include "validate/measured_repeats.h"
#include "validate/served_kv_dtype.h"

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

// Whether a vLLM version scheduled synchronously by default: vLLM 0.14.0 turned async
// scheduling on by default (its release notes, "Breaking Changes"), so "0.X.Y" with X < 14 did
// not. A version that does not read as 0.X (a nightly build, none recorded) keeps the preset's.
bool vllm_schedules_synchronously(const std::string& version) {
  if (version.rfind("0.", 0) != 0) return false;
  int minor = 0;
  size_t i = 2;
  for (; i < version.size() && version[i] >= '0' && version[i] <= '9'; ++i) {
    minor = minor * 10 + (version[i] - '0');
    if (minor >= 14) return false;
  }
  return i > 2 && (i == version.size() || version[i] == '.');
}

// The batching limits AIConfigurator's generator gives the aggregated worker of one of its
// benchmark runs, which set these runs up (the benchmark rules,
// generator/rule_plugin/benchmark/{vllm,trtllm,sglang}.rule, ai-dynamo/aiconfigurator 2026; its
// production rules, rule_plugin/*.rule, give 512 sequences instead of the row's batch), for the
// replica's `attention_dp` ranks:
// - vLLM and TensorRT-LLM: the row's batch size per rank (`agg max_batch_size`: the benchmark's
//   concurrency is workers x max_batch_size) and a token budget of that batch plus the prompt
//   plus 1,500 (`agg max_num_tokens = max_batch_size + isl + 1500`), TensorRT-LLM's rounded up to
//   its 32-token blocks (it needs a multiple of tokens_per_block, as the production rule rounds
//   it); tidal's TensorRT-LLM policy, which does not split prompts, needs a budget that holds
//   the whole sequence (the generator's max_seq_len does not bind it);
// - SGLang: the row's batch size (`--max-running-requests`) and prefill batches of at most the
//   prompt plus 1,500 tokens (`--max-prefill-tokens`, below the server's chunked-prefill size)
//   mixed with the decodes (`--enable-mixed-chunk`: tidal's chunked_prefill policy; SGLang counts
//   the mixed decodes against the same budget), for the whole server as SGLang divides its
//   limits among the ranks.
nlohmann::json generated_agg_limits(const MeasuredRun& run, const std::string& gpu,
                                    int64_t attention_dp) {
  const int64_t prefill_tokens = run.isl + 1500;
  const int64_t batch_size = (run.concurrency + attention_dp - 1) / attention_dp;  // per rank
  if (run.engine == "sglang") {
    // The server's chunked-prefill size: the preset's for the GPU.
    const perf::EnginePreset& preset = perf::find_engine_preset("sglang", std::nullopt, "", "");
    perf::EngineTarget target;
    target.gpu_name = gpu;
    target.gpu_memory_bytes = perf::find_gpu(gpu, "").memory_bytes;
    const int64_t chunk = perf::resolve_engine_defaults(preset, target, {}).max_num_batched_tokens;
    return {{"policy", "chunked_prefill"},
            {"max_num_seqs", batch_size * attention_dp},
            {"max_num_batched_tokens", std::min(prefill_tokens, chunk)}};
  }
  int64_t max_num_tokens = batch_size + prefill_tokens;
  if (run.engine == "trtllm") {
    max_num_tokens = std::max((max_num_tokens + 31) / 32 * 32, run.isl + run.osl);
  }
  return {{"max_num_seqs", batch_size * attention_dp},
          {"max_num_batched_tokens", max_num_tokens * attention_dp}};
}

// One pool of the row: `layout`'s parallelism, `num_replicas` of it, in `role`.
nlohmann::json pool_json(const MeasuredRun& run, const SiliconOptions& options,
                         const std::string& gpu, const WorkerLayout& layout,
                         const std::string& name, const std::string& role) {
  nlohmann::json pool{{"name", name},
                      {"model", config_path(options.configs_dir, run.model)},
                      {"gpu", gpu},
                      {"tp", layout.tp},
                      {"num_replicas", layout.num_workers}};
  if (role != "both") pool["role"] = role;
  // measured.csv counts as tidal does: tp x attention_dp GPUs, moe_tp x moe_ep of them.
  if (layout.moe_ep > 1) pool["ep"] = layout.moe_ep;
  if (layout.attention_dp > 1) pool["attention_dp"] = layout.attention_dp;
  if (const std::optional<std::string> dtype = weight_dtype_of(run.precision)) {
    pool["weight_dtype"] = *dtype;
  }
  if (const std::optional<std::string> kv =
          served_kv_dtype(run, config_path(options.configs_dir, run.model))) {
    pool["kv_dtype"] = *kv;
  }
  if (options.engine_presets) {
    pool["engine"] = run.engine;
    // AIConfigurator's generator turns TensorRT-LLM's overlap scheduler off on prefill workers
    // (generator/rule_plugin/{,benchmark/}trtllm.rule: `prefill disable_overlap_scheduler =
    // true`): they step synchronously.
    const bool trtllm_prefill = run.engine == "trtllm" && role == "prefill";
    if ((run.engine == "vllm" && vllm_schedules_synchronously(run.engine_version)) ||
        trtllm_prefill) {
      pool["engine"] = {{"name", run.engine}, {"async_scheduling", false}};
    }
  }
  if (options.step_model == "kernel_db") {
    pool["perf"] = {{"kind", "kernel_db"}, {"dir", options.kernel_db_dir}};
    // The row says which kernels ran (e.g. nvfp4 MoE kernels for an mxfp4 checkpoint).
    if (!run.gemm_quant_mode.empty()) pool["perf"]["gemm_dtype"] = run.gemm_quant_mode;
    if (!run.moe_quant_mode.empty()) pool["perf"]["moe_dtype"] = run.moe_quant_mode;
  }
  // The benchmark served the row's whole prompt and output, whatever the engine's default
  // context; without a preset the scheduler must also take every client at once.
  pool["scheduler"] = {{"max_model_len", run.isl + run.osl}};
  if (options.engine_presets && options.generated_limits && role == "both") {
    pool["scheduler"].update(generated_agg_limits(run, gpu, layout.attention_dp));
  } else if (options.engine_presets && run.engine == "trtllm" && run.isl + run.osl > 8192) {
    // TensorRT-LLM bounds a prompt by max_num_tokens and a sequence by max_seq_len; tidal's
    // continuous policy (TensorRT-LLM's, without chunked context) takes a budget that holds the
    // longest sequence, so rows longer than its 8,192 get that budget, on each attention rank.
    pool["scheduler"]["max_num_batched_tokens"] = (run.isl + run.osl) * layout.attention_dp;
  }
  if (!options.engine_presets) {
    pool["scheduler"]["policy"] = "chunked_prefill";
    pool["scheduler"]["max_num_seqs"] = std::max<int64_t>(256, run.concurrency);
  }
  // A disaggregated side's batch size is its engine's: AIConfigurator's generator sets every
  // engine's prefill worker max_batch_size to the prefill batch size (1 unless searched) and a
  // decode worker's to the decode batch size (generator/rule_plugin/{vllm,sglang,trtllm}.rule,
  // ai-dynamo/aiconfigurator 2026), per attention rank.
  if (role != "both" && layout.max_batch_size > 0) {
    pool["scheduler"]["max_num_seqs"] = layout.max_batch_size * layout.attention_dp;
  }
  return pool;
}

// How a disaggregated run's KV moves: NVLink across a GB200/GB300 NVL72 rack (NVLink 5, 1.8 TB/s
// both ways per GPU: FACTS.md), else InfiniBand between nodes (one 400 Gb/s ConnectX-7 per GPU in
// DGX H100, H200 and B200 systems: the link kind's default).
nlohmann::json kv_link_json(const MeasuredRun& run) {
  nlohmann::json link{{"from", "prefill"}, {"to", "decode"}};
  if (run.system == "gb200" || run.system == "gb300") {
    link["kind"] = "nvlink";
    link["gb_per_s_per_gpu"] = 900;
  } else {
    link["kind"] = "infiniband";
  }
  return link;
}

nlohmann::json scenario_json(const MeasuredRun& run, const SiliconOptions& options,
                             const std::string& gpu) {
  nlohmann::json pools = nlohmann::json::array();
  if (run.mode == "disagg") {
    pools.push_back(pool_json(run, options, gpu, run.prefill, "prefill", "prefill"));
    pools.push_back(pool_json(run, options, gpu, run.decode, "decode", "decode"));
  } else {
    const WorkerLayout layout{1, run.tp, run.pp, run.attention_dp, run.moe_tp, run.moe_ep};
    pools.push_back(pool_json(run, options, gpu, layout, "engine", "both"));
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
                          {"fleet", {{"pools", pools}}},
                          {"output", {{"trace_max_slices", 0}}}};
  if (run.mode == "disagg") scenario["kv_transfer"] = {{"links", {kv_link_json(run)}}};
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
        run, sim::load_scenario_text(scenario_json(run, options, gpu).dump(), run.where, ""),
        {},  run.engine,
        gpu, run.model,
        {},  options.stagger_clients,
        {}};
    row.architecture = architecture_identity(row.scenario.pools.front().model_spec);
    for (size_t p = 0; p < row.scenario.pools.size(); ++p) {
      const sim::PoolSpec& pool = row.scenario.pools[p];
      const int64_t moe_tp =
          run.mode != "disagg" ? run.moe_tp : (p == 0 ? run.prefill : run.decode).moe_tp;
      const int64_t moe_ep =
          run.mode != "disagg" ? run.moe_ep : (p == 0 ? run.prefill : run.decode).moe_ep;
      if (pool.model_spec.is_moe() && moe_tp != pool.deployment.moe_tp()) {
        *reason = fmt::format("MoE TP {} x EP {} is not the replica's {} GPUs (tp x attention_dp)",
                              moe_tp, moe_ep, pool.deployment.num_gpus());
        return std::nullopt;
      }
      row.bases.push_back(pool.step_model);
      if (pool.kernel_db_coverage)
        row.kernel_tables_version = pool.kernel_db_coverage->engine_version;
    }
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
  for (size_t p = 0; calibration != nullptr && p < scenario.pools.size(); ++p) {
    const int64_t pp = std::max<int64_t>(scenario.pools[p].deployment.pp, 1);
    scenario.pools[p].step_model = perf::make_calibrated_model(
        row.bases[p], *calibration, (scenario.pools[p].model_spec.num_layers + pp - 1) / pp);
    scenario.pools[p].calibration = *calibration;
  }
  sim::RunResult result = sim::run_scenario(scenario);
  sim::RunMetrics metrics = sim::compute_metrics(scenario, result);
  if (row.stagger_clients && metrics.e2e.count > 0) {
    (*scenario.workloads.at(0).generator)["start_spread_s"] = metrics.e2e.mean;
    result = sim::run_scenario(scenario);
    metrics = sim::compute_metrics(scenario, result);
  }
  return {metrics.ttft.mean * 1e3, metrics.tpot.mean * 1e3, metrics.ttft.count};
}

}  // namespace tidal::validate
