// `tidal validate`: wiring of validate/ (engine vs simulator on one trace, or a matrix of cases)
// to the command line.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "base/input_error.h"
#include "cli/commands.h"
#include "engine/engine_config.h"
#include "models/quantize_weights.h"
#include "validate/matrix.h"
#include "validate/matrix_rounds.h"
#include "validate/validation.h"

namespace tidal::cli {
namespace {

struct ValidateCliArgs {
  validate::ValidateOptions options;
  std::string matrix;
  int num_rounds = 1;  // --rounds
  std::string backend = "cpu";
  std::string quant = "none";
  std::string weight_dtype = "f32";
  std::string kv_dtype = "bf16";
  std::string spec = "none";
  double kv_memory_mib = 256.0;
  double load = 0.0;
  bool no_prefix_caching = false;
};

void print_line(const std::string& line) {
  std::fprintf(stderr, "%s\n", line.c_str());
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto args = std::make_shared<ValidateCliArgs>();
  validate::ValidateOptions& o = args->options;
  engine::EngineRunArgs& run = o.run;
  engine::EngineConfig& config = run.config;
  CLI::App* cmd = app.add_subcommand(
      "validate", "Run the engine and the simulator on the same trace and compare them");
  cmd->add_option("--matrix", args->matrix, "run every case of a matrix file instead");
  cmd->add_option("--rounds", args->num_rounds,
                  "with --matrix: run the whole matrix N times and summarize (default 1)");
  cmd->add_option("--trace", run.trace, "trace file (format detected from its first line)");
  cmd->add_option("--model", run.model, "checkpoint folder, config.json or preset");
  cmd->add_option("--backend", args->backend,
                  "engine and profiler backend: cpu, cuda (for --matrix: the matrix's keys)");
  cmd->add_option("--out", o.out_dir, "validation folder to write")
      ->required()
      ->check(kNonEmptyFolder);
  cmd->add_option("--profile", o.profile_path,
                  "profile JSON of this model and config (default: profile first)");
  cmd->add_option("--load", args->load,
                  "arrival rate as a share of the simulated capacity (overrides --time-scale)");
  cmd->add_flag("--repeat-engine", o.repeat_engine,
                "run the engine twice and report the spread beside the error");
  cmd->add_option("--title", o.title, "title of the validation");
  cmd->add_option("--format", run.trace_format, "trace format, overriding detection");
  cmd->add_option("--policy", config.scheduler.policy, "static, continuous or chunked_prefill");
  cmd->add_option("--admission", config.scheduler.admission,
                  "max_utilization or guaranteed_no_evict");
  cmd->add_option("--preemption", config.scheduler.preemption, "recompute or swap");
  cmd->add_option("--max-num-seqs", config.scheduler.max_num_seqs, "sequences per step");
  cmd->add_option("--max-batched-tokens", config.scheduler.max_num_batched_tokens,
                  "token budget per step");
  cmd->add_option("--max-model-len", config.scheduler.max_model_len, "longest prompt + output");
  cmd->add_option("--static-batch-size", config.scheduler.static_batch_size,
                  "static batching: requests per batch");
  cmd->add_option("--tp", config.tp, "tensor-parallel ranks (default 1)");
  cmd->add_option("--threads", config.num_threads, "kernel threads per rank (default 1)");
  cmd->add_option("--quant", args->quant, "weight quantization: none, int8, int8:gN, fp8");
  cmd->add_option("--weight-dtype", args->weight_dtype,
                  "unquantized linear weights: f32, bf16, fp16 (default f32)");
  cmd->add_option("--kv-dtype", args->kv_dtype, "KV cache dtype: f32, bf16, int8 (default bf16)");
  cmd->add_option("--block-size", config.block_size, "tokens per KV block (default 16)");
  cmd->add_option("--kv-blocks", config.num_gpu_blocks, "KV arena blocks");
  cmd->add_option("--kv-memory", args->kv_memory_mib, "KV arena MiB per rank (default 256)");
  cmd->add_option("--swap-blocks", config.num_cpu_blocks, "host swap arena blocks (default 0)");
  cmd->add_flag("--no-prefix-caching", args->no_prefix_caching, "disable prefix caching");
  cmd->add_option("--spec", args->spec, "speculative decoding: none, ngram:K, draft:...:K");
  cmd->add_option("--seed", config.seed, "sampling seed (default 0)");
  cmd->add_option("--model-seed", run.model_seed, "seed of random weights (default 0)");
  cmd->add_option("--time-scale", run.replay.time_scale, "multiply arrival times (default 1)");
  cmd->add_option("--length-scale", run.replay.length_scale,
                  "multiply prompt and output lengths (default 1)");
  cmd->add_option("--max-requests", run.replay.max_requests, "replay only the first N requests");
  cmd->callback([cmd, args] {
    const engine::BackendKind backend = engine::parse_backend_kind(args->backend, "--backend");
    if (args->matrix.empty() && cmd->count("--rounds") > 0) {
      throw InputError("--rounds: only with --matrix");
    }
    if (!args->matrix.empty() &&
        (cmd->count("--backend") > 0 || cmd->count("--weight-dtype") > 0)) {
      throw InputError(
          "--backend / --weight-dtype: with --matrix, set \"backend\" / \"weight_dtype\" in the "
          "matrix file (its defaults or a case)");
    }
    if (!args->matrix.empty()) {
      const validate::MatrixResult result = validate::run_matrix_rounds(
          validate::load_matrix(args->matrix), args->options.out_dir, args->num_rounds, print_line);
      std::printf("%s", result.markdown.c_str());
      std::printf("wrote %s/matrix.md and matrix.json\n", args->options.out_dir.c_str());
      return;
    }
    validate::ValidateOptions& v = args->options;
    if (v.run.trace.empty()) throw InputError("--trace: required (or give --matrix)");
    if (v.run.model.empty()) throw InputError("--model: required (or give --matrix)");
    v.run.config.backend = backend;
    v.run.config.quant = models::apply_weight_dtype(
        models::parse_quant_spec(args->quant, "--quant"), args->weight_dtype, "--weight-dtype");
    v.run.config.kv_dtype = engine::parse_kv_dtype(args->kv_dtype, "--kv-dtype");
    v.run.config.spec = engine::parse_spec_config(args->spec, "--spec");
    v.run.config.kv_cache_bytes = static_cast<int64_t>(args->kv_memory_mib * 1024.0 * 1024.0);
    v.run.config.enable_prefix_caching = !args->no_prefix_caching;
    if (cmd->count("--load") > 0) v.load = args->load;
    const validate::ValidationResult result = validate::run_validation(v, print_line);
    std::printf("%s", result.table.c_str());
    std::printf("wrote %s/validation.json\n", v.out_dir.c_str());
  });
}

}  // namespace tidal::cli
