// Engine presets: what vLLM, SGLang and TensorRT-LLM do by default. A preset is data
// (perf/engine_presets.cpp holds every figure beside its source, engine version and file); the
// rules below turn it into one pool's defaults, which depend on the GPU, the TP degree, the
// model and the keys the pool gives itself. docs/scenario.md, "Engine presets", tabulates them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "perf/memory_plan.h"

namespace tidal::perf {

// Host time per step the GPU waits for (scheduling, input preparation, sampling bookkeeping,
// output processing): base + per_seq x sequences in the step. The step-time model's explicit
// CPU-overhead term (RooflineOptions::cpu_overhead_base_s / cpu_overhead_per_seq_s).
struct StepOverhead {
  double base_s = 0.0;
  double per_seq_s = 0.0;
};

// Limits an engine picks by GPU. The first tier, in order, whose min_gpu_memory_gib the GPU
// reaches and whose except_gpu_names none is part of the GPU's name (case-insensitive) applies.
struct GpuTier {
  double min_gpu_memory_gib = 0.0;
  std::vector<std::string> except_gpu_names;
  int64_t max_num_batched_tokens = 0;
  int32_t max_num_seqs = 0;              // 0: SeqsFromKv decides
  int32_t cuda_graph_max_batch = 0;      // 0: CudaGraphRule decides
  int32_t cuda_graph_max_batch_tp4 = 0;  // at tp >= 4; 0: cuda_graph_max_batch
};

// SGLang's max_running_requests from the KV pool: clamp(kv_tokens / max_model_len x
// per_context_len, min_seqs, max_seqs), at most kv_tokens / 2.
struct SeqsFromKv {
  double per_context_len = 0.0;  // 0: the rule is off
  int32_t min_seqs = 0;
  int32_t max_seqs = 0;
};

// vLLM's largest CUDA-graph batch: min(seqs_factor x max_num_seqs x (1 + k), cap,
// max_num_batched_tokens).
struct CudaGraphRule {
  int32_t seqs_factor = 0;  // 0: the rule is off (the tier gives the figure)
  int32_t cap = 0;
};

// SGLang's mem_fraction_static: (gpu_mib - reserved) / gpu_mib rounded to 3 decimals, reserved =
// base + per_chunk_token x max(chunk, min_chunk_tokens) + per_graph_batch x cuda_graph_max_batch
// + per_tp x tp, at least large_gpu_min_reserve on GPUs above large_gpu_mib (all in MiB).
struct StaticMemoryRule {
  bool enabled = false;
  double base_mib = 0.0;
  double per_chunk_token_mib = 0.0;
  int64_t min_chunk_tokens = 0;
  double per_graph_batch_mib = 0.0;
  double per_tp_mib = 0.0;
  double large_gpu_mib = 0.0;
  double large_gpu_min_reserve_mib = 0.0;
};

struct EnginePreset {
  std::string name;     // as the scenario names it: "vllm", "sglang", "trtllm"
  std::string version;  // the release line it describes ("0.19" also matches "0.19.1")
  std::string label;    // "vLLM 0.19"
  // Scheduler (engine/sched names).
  std::string policy;
  std::string admission;
  std::string preemption;
  double watermark = 0.0;
  std::vector<GpuTier> tiers;                  // never empty; the last tier takes every GPU
  bool seqs_capped_by_batched_tokens = false;  // vLLM: max_num_seqs <= max_num_batched_tokens
  SeqsFromKv seqs_from_kv;
  bool max_model_len_capped_by_batched_tokens = false;  // TensorRT-LLM without chunking
  // With attention data parallelism every rank runs its own scheduler under the engine's
  // max_num_batched_tokens and max_num_seqs (vLLM, TensorRT-LLM): a replica's defaults are
  // attention_dp times the tier's. SGLang divides its server's limits among the ranks instead.
  bool limits_per_attention_rank = false;
  bool prefix_caching = true;
  int32_t block_size = 0;  // 0: keep tidal's
  // Memory.
  MemoryFraction memory_fraction = MemoryFraction::device;
  double gpu_memory_utilization = 0.9;  // unless static_memory gives it
  StaticMemoryRule static_memory;
  CudaGraphRule cuda_graph;
  // Host overheads.
  bool async_scheduling = true;         // on by default
  StepOverhead step_overhead_async;     // with async scheduling / overlap scheduling
  StepOverhead step_overhead_sync;      // without
  double frontend_per_request_s = 0.0;  // API server + tokenization, before the scheduler
  double detokenize_per_token_s = 0.0;  // streaming detokenization of each output token
  // Linear-attention models: Deployment::state_memory_ratio (0: states of max_num_seqs
  // sequences reserved).
  double state_memory_ratio = 0.0;
  // Where each figure comes from, by the key EngineDefaults::sources uses.
  std::map<std::string, std::string> sources;
};

// Every preset, engines in registry order, each engine's versions newest first.
std::span<const EnginePreset> engine_presets();

// The preset of `name` (case-insensitive) for `version` (absent: the engine's newest). A version
// matches a preset's when equal or when it extends it by "." ("0.19.1" matches "0.19"). Errors
// are InputErrors naming the path:
//   "<json_path>: unknown engine "x" (known: vllm, sglang, trtllm)"
//   "<version_path>: unknown vllm version "0.5" (known: 0.19)"
const EnginePreset& find_engine_preset(std::string_view name,
                                       std::optional<std::string_view> version,
                                       const std::string& json_path,
                                       const std::string& version_path);

// What the preset's rules read about the pool.
struct EngineTarget {
  std::string gpu_name;
  double gpu_memory_bytes = 0.0;
  int32_t tp = 1;
  int32_t attention_dp = 1;            // attention data-parallel ranks of a replica
  int64_t model_max_len = 0;           // the model's context (max_position)
  int32_t num_speculative_tokens = 0;  // k
  bool has_linear_layers = false;      // the model keeps recurrent states (state_memory_ratio)
};

// Keys the pool gives itself: rules that read them use the pool's values.
struct EngineGiven {
  std::optional<int64_t> max_num_batched_tokens;
  std::optional<int32_t> max_num_seqs;
  std::optional<bool> async_scheduling;
  std::optional<double> step_overhead_base_s;
  std::optional<double> step_overhead_per_seq_s;
  std::optional<double> frontend_per_request_s;
  std::optional<double> detokenize_per_token_s;
  std::optional<double> state_memory_ratio;
};

// One pool's engine defaults. `sources` names where each came from, keyed "policy",
// "admission", "preemption", "watermark", "max_num_batched_tokens", "max_num_seqs",
// "max_model_len", "prefix_caching", "block_size" (when the preset sets it),
// "gpu_memory_utilization", "memory_fraction", "cuda_graph_max_batch", "async_scheduling",
// "step_overhead_base_s", "step_overhead_per_seq_s", "frontend_per_request_s",
// "detokenize_per_token_s", "state_memory_ratio"; "given" where the pool gave the key.
struct EngineDefaults {
  std::string policy, admission, preemption;
  double watermark = 0.0;
  int64_t max_num_batched_tokens = 0;
  int32_t max_num_seqs = 0;
  bool max_num_seqs_from_kv = false;  // set it with seqs_from_kv() once the KV pool is known
  int64_t max_model_len = 0;
  bool prefix_caching = true;
  std::optional<int32_t> block_size;
  double gpu_memory_utilization = 0.9;
  MemoryFraction memory_fraction = MemoryFraction::device;
  int32_t cuda_graph_max_batch = 0;
  bool async_scheduling = true;
  StepOverhead step_overhead;
  double frontend_per_request_s = 0.0;
  double detokenize_per_token_s = 0.0;
  // Set for a model with linear-attention layers only (the pool's Deployment takes it).
  std::optional<double> state_memory_ratio;
  std::map<std::string, std::string> sources;
};

EngineDefaults resolve_engine_defaults(const EnginePreset& preset, const EngineTarget& target,
                                       const EngineGiven& given);

// SeqsFromKv over a KV pool of `kv_tokens` tokens per replica.
int32_t seqs_from_kv(const SeqsFromKv& rule, int64_t kv_tokens, int64_t max_model_len);

// CudaGraphRule (or the tier's figure) for the final max_num_seqs and token budget.
int32_t cuda_graph_max_batch(const EnginePreset& preset, const EngineTarget& target,
                             int32_t max_num_seqs, int64_t max_num_batched_tokens);

}  // namespace tidal::perf
