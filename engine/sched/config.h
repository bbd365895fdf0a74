// Scheduler configuration: which batching, admission and preemption policies run, and the
// limits every step plan respects. Keys mirror the scenario's `scheduler` object
// (docs/scheduler.md lists each with its default).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "engine/kv/block_manager.h"

namespace tidal::sched {

struct SchedulerConfig {
  std::string policy = "continuous";  // static | continuous | chunked_prefill | prefill_first
  std::string admission = "max_utilization";  // max_utilization | guaranteed_no_evict
  std::string preemption = "recompute";       // recompute | swap
  int32_t max_num_seqs = 256;                 // sequences running (and scheduled) at once
  int64_t max_num_batched_tokens = 8192;      // token budget per step (the chunk budget too)
  double watermark = 0.01;                    // share of GPU blocks admission must leave free
  int64_t max_model_len = 8192;               // prompt + output tokens a request may reach
  int32_t static_batch_size = 32;             // static: requests per batch
  double static_batch_timeout_s = 0.5;        // static: longest wait for a full batch
  int32_t num_speculative_tokens = 0;         // draft tokens per decoding request and step (k)
  std::string queue_policy = "fcfs";          // fcfs | priority | fair_share (queue_policy.h)
  // fair_share: service counted per prompt token and per output token. Defaults: the weights
  // of the VTC paper's example (Sheng et al., OSDI 2024: w_p = 1, w_q = 2).
  double fair_share_input_weight = 1.0;
  double fair_share_output_weight = 2.0;
  // Distinct LoRA adapters (Request::adapter) the running requests may hold; 0: no limit (a
  // pool without `lora`). A waiting request whose adapter would exceed it is passed over for the
  // step and the next one tried, as vLLM V1's scheduler skips it
  // (vllm/v1/core/sched/scheduler.py, `max_loras`) and as SGLang counts the running batch's.
  int32_t max_loras_per_batch = 0;
  // Whether each step is formed while the step before it runs, from what the scheduler knew when
  // that step began (vLLM's async scheduling, SGLang's overlap scheduler, TensorRT-LLM's overlap
  // scheduler): a request added while a step runs cannot join the next step, only the one after
  // it. A scheduler with no running request has formed nothing ahead and takes every arrival.
  bool schedule_ahead = false;
};

// The step token budget a pool gets when neither its scenario nor an engine preset sets
// max_num_batched_tokens: SchedulerConfig's 8192, except for chunked_prefill, which gets
// kChunkedPrefillTokens as vLLM does when chunked prefill is on and the budget is left out.
// (Sources: vLLM V0, vllm/config.py SchedulerConfig.__post_init__ at commit 0004438 (2025):
// 2048 with chunked prefill, "a balance between ITL and TTFT", 512 in earlier V0 releases; vLLM
// V1, vllm/engine/arg_utils.py EngineArgs.get_batch_defaults: 2048 for the API server on A100s
// and GPUs below 70 GiB, 8192 above, which the vllm engine preset applies.) At 8192 chunking
// rarely splits a prompt of the usual traces, so chunked_prefill would change little.
inline constexpr int64_t kChunkedPrefillTokens = 2048;
int64_t default_max_num_batched_tokens(std::string_view policy);

// The registered names, in registry order.
std::span<const std::string_view> batch_policy_names();
std::span<const std::string_view> admission_policy_names();
std::span<const std::string_view> preemption_mode_names();
std::span<const std::string_view> queue_policy_names();

// Throws InputError naming `json_path` (e.g. "fleet.pools[0].scheduler") and the key for any
// impossible setting: unknown policy/admission/preemption name, non-positive limits, watermark
// outside [0, 1), static_batch_size below 1 (or above max_num_seqs for static batching), a
// negative timeout or k, max_num_batched_tokens < max_model_len for a policy that never chunks
// (continuous), swap preemption with a policy that does not support it (prefill_first) or
// without a CPU block pool (`kv.num_cpu_blocks` == 0), an unknown queue_policy, a queue_policy
// other than fcfs with static batching, fair-share weights that are not positive and finite,
// schedule_ahead with static batching.
void validate(const SchedulerConfig& config, const kv::BlockManagerConfig& kv,
              std::string_view json_path);

}  // namespace tidal::sched
