// Everything that shapes one engine instance: parallelism, numeric formats, KV pools, the
// scheduler, speculative decoding and sampling. Command-line spellings are parsed here so that
// the CLI and tests share the error messages.
#pragma once

#include <cstdint>
#include <string>

#include "engine/sched/config.h"
#include "kernels/kv_cache.h"
#include "kernels/sampling.h"
#include "models/config.h"
#include "models/quantize_weights.h"

namespace tidal::engine {

enum class SpecMethod : uint8_t {
  none,   // plain decoding
  ngram,  // prompt lookup: continue the latest earlier occurrence of the sequence's suffix
  draft,  // a draft model proposes tokens greedily (or by sampling when temperature > 0)
};

struct SpecConfig {
  SpecMethod method = SpecMethod::none;
  int32_t num_spec_tokens = 0;   // k: draft tokens per decoding request and step
  int32_t num_draft_layers = 0;  // draft: the target truncated to its first N layers (N > 0) ...
  std::string draft_model;       // ... or this model (a preset, config.json or checkpoint folder)
  int32_t ngram_max = 3;         // ngram: longest suffix looked up
  int32_t ngram_min = 1;         // ngram: shortest suffix looked up
};

// "none", "ngram:K", "draft:LAYERS:K" (target truncated to LAYERS layers) or "draft:MODEL:K"
// (MODEL a preset name, config.json or checkpoint folder). InputError naming `what` otherwise.
SpecConfig parse_spec_config(const std::string& text, const std::string& what);
std::string spec_config_name(const SpecConfig& spec);

// "f32" | "bf16" | "int8"; InputError naming `what` otherwise.
kernels::KvDType parse_kv_dtype(const std::string& text, const std::string& what);

// Where the engine computes: the CPU backend (host memory) or the CUDA backend (weights, KV
// arena and activations in device memory; built only with TIDAL_HAVE_CUDA).
enum class BackendKind : uint8_t { cpu, cuda };

// "cpu" | "cuda"; InputError naming `what` otherwise.
BackendKind parse_backend_kind(const std::string& text, const std::string& what);
const char* backend_kind_name(BackendKind kind);

// --cuda-graphs: "on" | "off" with --backend cuda, "" (not given) meaning on; InputError naming
// --cuda-graphs for another word or when given with --backend cpu (which has no graphs).
bool parse_cuda_graphs(const std::string& text, BackendKind backend);

// Bounds of the settings below (docs/engine.md, "Limits"): validate() refuses what lies beyond.
inline constexpr int32_t kMaxThreadsPerRank = 256;
inline constexpr int32_t kMaxBlockSize = 1024;  // tokens per KV block

struct EngineConfig {
  BackendKind backend = BackendKind::cpu;
  int32_t tp = 1;           // tensor-parallel ranks, one worker thread each (cuda: one GPU each)
  int32_t num_threads = 1;  // kernel threads per rank (cpu)
  models::QuantSpec quant;  // weight-only quantization applied at load time (after sharding)
  kernels::KvDType kv_dtype = kernels::KvDType::bf16;
  int32_t block_size = 16;                    // tokens per KV block
  int64_t num_gpu_blocks = 0;                 // device KV arena blocks; 0: from kv_cache_bytes
                                              // (cpu) or gpu_memory_utilization (cuda)
  int64_t kv_cache_bytes = int64_t{1} << 28;  // cpu: per-rank KV budget when num_gpu_blocks == 0
  // cuda: share of each GPU's memory the engine may fill (weights, activations, KV arena); the
  // arena takes what is left after the weights and an activation reserve, at most the blocks
  // max_num_seqs sequences of max_model_len tokens need. In (0, 1].
  double gpu_memory_utilization = 0.9;
  bool cuda_graphs = true;     // cuda: decode steps through CUDA graphs (see PagedModel)
  int64_t num_cpu_blocks = 0;  // host swap arena blocks (swap preemption)
  bool enable_prefix_caching = true;
  // Batching, admission, preemption and limits; max_model_len is lowered to the model's
  // max_position_embeddings, num_speculative_tokens is set from `spec`, and for policies other
  // than static (which ignore it) static_batch_size is lowered to max_num_seqs.
  sched::SchedulerConfig scheduler;
  SpecConfig spec;
  kernels::SamplingParams sampling{0.0f, 0, 1.0f};  // temperature 0: greedy
  uint64_t seed = 0;                                // sampling RNG of request r: (seed, r)
};

// Throws InputError naming the option (--tp, --threads, --kv-blocks, ...) for an impossible
// setting against this model, including the scheduler's own checks. For --backend cuda also
// when this tidal has no CUDA backend, no device is present, tp exceeds the device count, swap
// preemption is asked for (the CUDA engine has no host swap arena) or a draft model (CPU only).
void validate(const EngineConfig& config, const models::ModelConfig& model);

// The scheduler config the engine runs with (see EngineConfig::scheduler).
sched::SchedulerConfig effective_scheduler_config(const EngineConfig& config,
                                                  const models::ModelConfig& model);

}  // namespace tidal::engine
