// `tidal profile`: wiring of engine/profile (CPU operator profiles), perf's Vidur import and
// perf's kernel-table export to the command line.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "base/output_files.h"
#include "cli/commands.h"
#include "engine/engine_config.h"
#include "engine/profile/cuda_target.h"
#include "engine/profile/profiler.h"
#include "engine/sched/config.h"
#include "models/quantize_weights.h"
#include "perf/gpu_catalog.h"
#include "perf/kernel_db_profile.h"
#include "perf/model_resolve.h"
#include "perf/profile.h"
#include "perf/vidur_import.h"

namespace tidal::cli {
namespace {

struct ProfileCliArgs {
  profile::ProfileOptions options;
  std::string backend = "cpu";
  std::string quant = "none";
  std::string weight_dtype = "f32";
  std::string kv_dtype = "bf16";
  std::string out;
  bool no_prefix_caching = false;
};

struct ImportCliArgs {
  std::string vidur_dir;
  std::string gpu;
  std::string model;
  int32_t tp = 1;
  std::string out;
};

void add_import_vidur(CLI::App& profile_app) {
  auto args = std::make_shared<ImportCliArgs>();
  CLI::App* cmd = profile_app.add_subcommand(
      "import-vidur", "Turn Vidur's profiling CSVs into a tidal profile JSON");
  cmd->add_option("dir", args->vidur_dir,
                  "Vidur profiling folder (holding compute/, network/, legacy_oss_release_*/)")
      ->required();
  cmd->add_option("--gpu", args->gpu, "Vidur GPU label: a100, a40 or h100")->required();
  cmd->add_option("--model", args->model,
                  "model as Vidur names it, e.g. meta-llama/Llama-2-70b-hf (the folder under "
                  "compute/<gpu>/)")
      ->required();
  cmd->add_option("--tp", args->tp, "tensor-parallel degree of the rows to import (default 1)");
  cmd->add_option("--out", args->out, "profile JSON to write")->required();
  cmd->callback([args] {
    const std::string model_dir = args->model.substr(args->model.find_last_of('/') + 1);
    const perf::Profile p = perf::import_vidur(args->vidur_dir, args->gpu, model_dir, args->tp);
    perf::save_profile(p, args->out);
    std::printf("wrote %s (%s, %s, tp %d; attention %s)\n", args->out.c_str(),
                p.provenance.device.c_str(), p.model.name.c_str(), p.tp,
                p.attention_source == perf::TimeSource::measured ? "measured" : "roofline");
  });
}

struct ImportKernelDbCliArgs {
  perf::KernelDbSpec spec;
  std::string gpu;
  std::string model;
  int32_t tp = 1;
  std::string weight_dtype;  // "" = the checkpoint's own
  std::string kv_dtype = "bf16";
  std::string out;
};

void add_import_kernel_db(CLI::App& profile_app) {
  auto args = std::make_shared<ImportKernelDbCliArgs>();
  CLI::App* cmd = profile_app.add_subcommand(
      "import-kernel-db",
      "Write the kernel-table model's prediction for one deployment as a tidal profile JSON");
  cmd->add_option("--dir", args->spec.dir,
                  "kernel database folder (../shared/profiles/aiconfigurator)")
      ->required();
  cmd->add_option("--engine", args->spec.engine, "vllm, sglang or trtllm")->required();
  cmd->add_option("--engine-version", args->spec.engine_version,
                  "engine version folder (default: the only one the GPU's folder holds)");
  cmd->add_option("--gpu", args->gpu, "catalog GPU: H100-SXM, H200, B200, A100-80GB or GB200")
      ->required();
  cmd->add_option("--model", args->model, "catalog model name, config.json or a folder holding one")
      ->required();
  cmd->add_option("--tp", args->tp, "tensor-parallel degree (default 1)");
  cmd->add_option("--weight-dtype", args->weight_dtype,
                  "served weight dtype: bf16, fp8, int4, fp4, ... (default: the checkpoint's)");
  cmd->add_option("--kv-dtype", args->kv_dtype, "KV cache dtype (default bf16)");
  cmd->add_option("--out", args->out, "profile JSON to write")->required();
  cmd->callback([args] {
    const perf::ModelSpec model = perf::resolve_model(
        nlohmann::json(args->model), std::filesystem::current_path(), "--model", "model");
    const perf::GpuSpec gpu = perf::resolve_gpu(nlohmann::json(args->gpu), "--gpu", "gpu");
    perf::Deployment deployment;
    deployment.tp = args->tp;
    deployment.weight_dtype = args->weight_dtype.empty()
                                  ? model.quant.dtype
                                  : perf::parse_dtype(args->weight_dtype, "--weight-dtype");
    deployment.kv_dtype = perf::parse_dtype(args->kv_dtype, "--kv-dtype");
    perf::check_deployment(model, deployment, "");
    perf::KernelDbCoverage coverage;
    const perf::Profile p =
        perf::kernel_db_profile(args->spec, model, gpu, deployment, {}, &coverage);
    perf::save_profile(p, args->out);
    std::printf("wrote %s (%s, %s, tp %d; %d classes from tables, %d scaled, %d roofline)\n",
                args->out.c_str(), coverage.tables.c_str(), model.name.c_str(), p.tp,
                coverage.count(perf::CoverageKind::table),
                coverage.count(perf::CoverageKind::scaled),
                coverage.count(perf::CoverageKind::roofline));
    for (const perf::OperatorCoverage& op : coverage.operators) {
      std::printf("  %-18s %-8s %s\n", std::string(perf::op_class_name(op.op)).c_str(),
                  std::string(perf::coverage_kind_name(op.kind)).c_str(), op.detail.c_str());
    }
  });
}

}  // namespace

void add_profile_command(CLI::App& app) {
  auto args = std::make_shared<ProfileCliArgs>();
  profile::ProfileOptions& o = args->options;
  CLI::App* cmd = app.add_subcommand(
      "profile", "Measure a step-time profile on the engine's backend (or import Vidur's)");
  cmd->add_option("--backend", args->backend, "cpu (cuda when the CUDA backend is built)");
  cmd->add_option("--model", o.model, "checkpoint folder, config.json or preset");
  cmd->add_option("--tp", o.engine.tp, "tensor-parallel ranks (default 1)");
  cmd->add_option("--quant", args->quant, "weight quantization: none, int8, int8:gN, fp8");
  cmd->add_option("--weight-dtype", args->weight_dtype,
                  "linear weights stored as f32, bf16 or fp16 (default f32; not with --quant)");
  cmd->add_option("--kv-dtype", args->kv_dtype, "KV cache dtype: f32, bf16, int8 (default bf16)");
  cmd->add_option("--threads", o.engine.num_threads, "kernel threads per rank (default 1)");
  cmd->add_option("--block-size", o.engine.block_size, "tokens per KV block (default 16)");
  cmd->add_option("--policy", o.engine.scheduler.policy,
                  "batching policy of the CPU-overhead waves: static, continuous (default), "
                  "chunked_prefill or prefill_first");
  cmd->add_flag("--no-prefix-caching", args->no_prefix_caching,
                "CPU-overhead waves without the prefix cache's bookkeeping");
  cmd->add_option("--model-seed", o.model_seed, "seed of random weights (default 0)");
  cmd->add_option("--max-tokens", o.max_num_tokens, "largest token count profiled (default 2048)");
  cmd->add_option("--max-batch", o.max_batch_size, "largest decode batch profiled (default 64)");
  cmd->add_option("--max-point-seconds", o.max_point_seconds,
                  "stop growing a grid after a forward slower than this (default 0.5)");
  cmd->add_option("--out", args->out, "profile JSON to write");
  add_import_vidur(*cmd);
  add_import_kernel_db(*cmd);
  cmd->callback([cmd, args] {
    if (cmd->got_subcommand("import-vidur") || cmd->got_subcommand("import-kernel-db")) return;
    if (args->backend != "cpu" && args->backend != "cuda") {
      throw InputError("--backend: '" + args->backend + "' is not a backend (cpu, cuda)");
    }
    if (args->options.model.empty()) throw InputError("--model: required");
    if (args->out.empty()) throw InputError("--out: required");
    args->options.engine.quant = models::apply_weight_dtype(
        models::parse_quant_spec(args->quant, "--quant"), args->weight_dtype, "--weight-dtype");
    args->options.engine.kv_dtype = engine::parse_kv_dtype(args->kv_dtype, "--kv-dtype");
    args->options.engine.enable_prefix_caching = !args->no_prefix_caching;
    const std::string& policy = args->options.engine.scheduler.policy;
    if (std::ranges::find(sched::batch_policy_names(), policy) ==
        sched::batch_policy_names().end()) {
      std::string known;
      for (const std::string_view name : sched::batch_policy_names()) {
        known += (known.empty() ? "" : ", ") + std::string(name);
      }
      throw InputError("--policy: unknown batching policy '" + policy + "' (known: " + known + ")");
    }
    base::check_output_writable(args->out);  // before the measurement, not after it
    const auto run = args->backend == "cuda" ? profile::run_cuda_profile : profile::run_profile;
    const perf::Profile p = run(
        args->options, [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); },
        nullptr);
    perf::save_profile(p, args->out);
    std::printf("wrote %s (%s, %s, tp %d, %d threads)\n", args->out.c_str(),
                p.provenance.device.c_str(), p.model.name.c_str(), p.tp,
                args->options.engine.num_threads);
  });
}

}  // namespace tidal::cli
