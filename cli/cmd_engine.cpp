// `tidal engine run`: wiring of the engine/ library to the command line.
#include <cstdio>
#include <memory>
#include <string>

#include <unistd.h>

#include <CLI/CLI.hpp>

#include "base/input_error.h"
#include "cli/commands.h"
#include "engine/engine_config.h"
#include "engine/engine_run.h"
#include "engine/sched/config.h"
#include "engine/stop_signals.h"
#include "models/quantize_weights.h"

namespace tidal::cli {
namespace {

struct EngineCliArgs {
  engine::EngineRunArgs run;
  std::string backend = "cpu";
  std::string cuda_graphs;  // "": not given
  std::string quant = "none";
  std::string weight_dtype = "f32";
  std::string kv_dtype = "bf16";
  std::string spec = "none";
  double kv_memory_mib = 256.0;
  bool no_prefix_caching = false;
};

void add_run(CLI::App& engine_app) {
  auto args = std::make_shared<EngineCliArgs>();
  engine::EngineRunArgs& run = args->run;
  engine::EngineConfig& config = run.config;
  CLI::App* cmd = engine_app.add_subcommand(
      "run", "Replay a trace on the engine (CPU or CUDA) in real time and write a run folder");
  cmd->add_option("--model", run.model,
                  "checkpoint folder, config.json or preset (tiny, small-100m, ...); a config "
                  "gets seeded random weights")
      ->required();
  cmd->add_option("--trace", run.trace, "trace file (format detected from its first line)")
      ->required();
  cmd->add_option("--out", run.out_dir, "run folder to write")->required();
  cmd->add_option("--format", run.trace_format, "trace format, overriding detection");
  cmd->add_option("--policy", config.scheduler.policy,
                  "batching policy: static, continuous or chunked_prefill (default continuous)");
  cmd->add_option("--admission", config.scheduler.admission,
                  "admission: max_utilization or guaranteed_no_evict");
  cmd->add_option("--preemption", config.scheduler.preemption,
                  "preemption: recompute or swap (swap needs --swap-blocks)");
  cmd->add_option("--queue-policy", config.scheduler.queue_policy,
                  "admission order: fcfs, priority (the trace's priority) or fair_share (by "
                  "tenant)");
  cmd->add_option("--max-num-seqs", config.scheduler.max_num_seqs, "sequences per step");
  cmd->add_option("--static-batch-size", config.scheduler.static_batch_size,
                  "static batching: requests per batch");
  CLI::Option* max_batched_tokens =
      cmd->add_option("--max-batched-tokens", config.scheduler.max_num_batched_tokens,
                      "token budget per step (default 8192; 2048 with chunked_prefill)");
  cmd->add_option("--max-model-len", config.scheduler.max_model_len,
                  "longest prompt + output (capped at the model's context)");
  cmd->add_option("--backend", args->backend,
                  "cpu or cuda (GPU 0..tp-1; needs a tidal built with CUDA), default cpu");
  cmd->add_option("--gpu-memory-utilization", config.gpu_memory_utilization,
                  "cuda: share of each GPU's memory for weights, activations and the KV arena "
                  "(sized from what is free after the weights unless --kv-blocks), default 0.9");
  cmd->add_option("--cuda-graphs", args->cuda_graphs,
                  "cuda: decode steps through CUDA graphs, on or off (default on)");
  cmd->add_option("--tp", config.tp,
                  "tensor-parallel ranks (cpu: worker threads; cuda: GPUs via NCCL), default 1");
  cmd->add_option("--threads", config.num_threads, "kernel threads per rank, default 1");
  cmd->add_option("--quant", args->quant,
                  "weight quantization: none, int8, int8:g32|g64|g128, fp8 (default none)");
  cmd->add_option("--weight-dtype", args->weight_dtype,
                  "linear weights stored as f32, bf16 or fp16 (default f32; not with --quant)");
  cmd->add_option("--kv-dtype", args->kv_dtype, "KV cache dtype: f32, bf16, int8 (default bf16)");
  cmd->add_option("--block-size", config.block_size, "tokens per KV block (default 16)");
  CLI::Option* kv_blocks =
      cmd->add_option("--kv-blocks", config.num_gpu_blocks,
                      "KV arena blocks (default: as many as --kv-memory holds)");
  cmd->add_option("--kv-memory", args->kv_memory_mib, "cpu: KV arena MiB per rank (default 256)");
  cmd->add_option("--swap-blocks", config.num_cpu_blocks, "host swap arena blocks (default 0)");
  cmd->add_flag("--no-prefix-caching", args->no_prefix_caching, "disable prefix caching");
  cmd->add_option("--spec", args->spec,
                  "speculative decoding: none, ngram:K, draft:LAYERS:K (target truncated) or "
                  "draft:MODEL:K");
  cmd->add_option("--temperature", config.sampling.temperature,
                  "sampling temperature (default 0: greedy)");
  cmd->add_option("--top-k", config.sampling.top_k, "top-k cut (default 0: none)");
  cmd->add_option("--top-p", config.sampling.top_p, "nucleus cut (default 1: none)");
  // Unsigned options would read -1 as 2^64 - 1.
  const CLI::Validator non_negative(
      [](std::string& text) { return text.starts_with('-') ? "must be >= 0, got " + text : ""; },
      "INT >= 0");
  cmd->add_option("--seed", config.seed, "sampling seed (default 0)")->check(non_negative);
  cmd->add_option("--model-seed", run.model_seed, "seed of random weights (default 0)")
      ->check(non_negative);
  cmd->add_option("--time-scale", run.replay.time_scale,
                  "multiply arrival times (default 1; 0: all arrive at once)");
  cmd->add_option("--length-scale", run.replay.length_scale,
                  "multiply prompt and output lengths (default 1)");
  CLI::Option* max_requests = cmd->add_option("--max-requests", run.replay.max_requests,
                                              "replay only the first N requests (default: all)");
  cmd->callback([args, kv_blocks, max_requests, max_batched_tokens] {
    engine::EngineRunArgs& a = args->run;
    // The policy's chunk budget (vLLM's with chunked prefill) unless given, as in a scenario.
    if (max_batched_tokens->count() == 0) {
      a.config.scheduler.max_num_batched_tokens =
          sched::default_max_num_batched_tokens(a.config.scheduler.policy);
    }
    // 0 is how the library says "not given"; given on the command line it is a mistake.
    if (kv_blocks->count() > 0 && a.config.num_gpu_blocks < 1) {
      throw InputError("--kv-blocks: must be at least 1 (got " +
                       std::to_string(a.config.num_gpu_blocks) +
                       "); leave it out to size the arena from --kv-memory");
    }
    if (max_requests->count() > 0 && a.replay.max_requests < 1) {
      throw InputError("--max-requests: must be at least 1 (got " +
                       std::to_string(a.replay.max_requests) +
                       "); leave it out to replay every request");
    }
    a.config.backend = engine::parse_backend_kind(args->backend, "--backend");
    a.config.cuda_graphs = engine::parse_cuda_graphs(args->cuda_graphs, a.config.backend);
    a.config.quant = models::apply_weight_dtype(models::parse_quant_spec(args->quant, "--quant"),
                                                args->weight_dtype, "--weight-dtype");
    a.config.kv_dtype = engine::parse_kv_dtype(args->kv_dtype, "--kv-dtype");
    a.config.spec = engine::parse_spec_config(args->spec, "--spec");
    a.config.kv_cache_bytes = static_cast<int64_t>(args->kv_memory_mib * 1024.0 * 1024.0);
    a.config.enable_prefix_caching = !args->no_prefix_caching;
    if (isatty(fileno(stderr))) {
      a.replay.on_progress = [](int64_t num_done, int64_t num_requests) {
        std::fprintf(stderr, "\r%lld / %lld requests done", static_cast<long long>(num_done),
                     static_cast<long long>(num_requests));
        if (num_done == num_requests) std::fprintf(stderr, "\n");
      };
    }
    // SIGINT / SIGTERM: end after the step in flight and write the run folder marked partial;
    // a second signal ends tidal at once (engine/stop_signals.h).
    const engine::StopOnSignals stop_on_signals;
    a.replay.stop_signal = &stop_on_signals.stop_signal();
    const engine::EngineRunSummary s = engine::run_engine(a);
    std::printf(
        "engine run: %lld requests, %lld finished, %lld rejected, %lld output tokens, %lld steps "
        "in %.2f s\n",
        static_cast<long long>(s.num_requests), static_cast<long long>(s.num_finished),
        static_cast<long long>(s.num_rejected), static_cast<long long>(s.num_output_tokens),
        static_cast<long long>(s.num_steps), s.wall_s);
    std::printf("model: %s; weights %zu bytes per rank; KV %zu bytes per token per rank\n",
                s.model_source.c_str(), s.memory.weight_bytes_per_rank,
                s.memory.kv_bytes_per_token_per_rank);
    if (!s.device.empty()) {
      std::printf("backend: %s on %s; KV arena %lld blocks per rank\n", s.backend.c_str(),
                  s.device.c_str(), static_cast<long long>(s.memory.num_gpu_blocks));
    }
    if (s.spec.num_verifications > 0) {
      std::printf("speculative: acceptance rate %.3f, mean accepted length %.3f\n",
                  s.spec.acceptance_rate(), s.spec.mean_accepted_length());
    }
    if (s.stop_signal != 0) {
      std::printf("stopped by %s: wrote %s, marked partial (%lld of %lld requests done)\n",
                  engine::signal_name(s.stop_signal).c_str(), a.out_dir.c_str(),
                  static_cast<long long>(s.num_finished + s.num_rejected),
                  static_cast<long long>(s.num_requests));
      std::fflush(stdout);
      throw CLI::RuntimeError(128 + s.stop_signal);  // the shell's code for that signal
    }
    std::printf("wrote %s\n", a.out_dir.c_str());
  });
}

}  // namespace

void add_engine_command(CLI::App& app) {
  CLI::App* engine_app = app.add_subcommand("engine", "Run LLM inference on the real engine");
  engine_app->require_subcommand(1);
  add_run(*engine_app);
}

}  // namespace tidal::cli
