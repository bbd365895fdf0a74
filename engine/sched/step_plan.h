// What one scheduler step hands the executor (simulator or engine), what the executor reports
// back, and the per-request events the scheduler derives from that.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/kv/block_manager.h"

namespace tidal::sched {

// One request's share of a step. Every request needs num_tokens = prompt + generated tokens
// (+ its speculative tokens) computed; a step computes tokens
// [num_context_tokens, num_context_tokens + num_new_tokens) of it.
struct ScheduledSeq {
  int64_t request_id = 0;
  int64_t num_new_tokens = 0;         // tokens computed this step (prefill chunk, 1 decode, 1 + k)
  int64_t num_context_tokens = 0;     // tokens already in the KV cache before this step
  int32_t num_spec_tokens = 0;        // of num_new_tokens, speculative tokens to verify
  int64_t num_prefix_hit_tokens = 0;  // tokens found in the prefix cache when admitted this step
  bool samples = false;               // the step reaches the request's last token: it emits tokens
  bool first_scheduled = false;       // the first step ever to schedule this request
};

// A running request pushed out of the GPU this step to make room.
struct Preemption {
  int64_t request_id = 0;
  bool swapped = false;  // true: blocks copied to CPU (see StepPlan::swap_out); false: recompute
};

struct StepPlan {
  std::vector<ScheduledSeq> seqs;       // [num scheduled], in the order update() expects
  std::vector<Preemption> preempted;    // [num preempted this step]
  std::vector<kv::BlockCopy> swap_out;  // [num_swap_out_blocks] GPU -> CPU, before the step
  std::vector<kv::BlockCopy> swap_in;   // [num_swap_in_blocks] CPU -> GPU, before the step
  int64_t num_batched_tokens = 0;       // sum of seqs[i].num_new_tokens

  int64_t num_swap_out_blocks() const { return static_cast<int64_t>(swap_out.size()); }
  int64_t num_swap_in_blocks() const { return static_cast<int64_t>(swap_in.size()); }
  // Nothing to execute: no sequence and no preemption.
  bool empty() const { return seqs.empty() && preempted.empty(); }
  void clear() {
    seqs.clear();
    preempted.clear();
    swap_out.clear();
    swap_in.clear();
    num_batched_tokens = 0;
  }
};

// The executor's report for one scheduled sequence, aligned with StepPlan::seqs.
struct SeqOutput {
  // Tokens the step produced for this sequence: 0 when it does not sample; otherwise
  // 1 + (accepted speculative tokens), in [1, num_spec_tokens + 1].
  int32_t num_accepted_tokens = 0;
};

// What happened to one scheduled request in a step (update() returns one per ScheduledSeq).
struct RequestEvent {
  int64_t request_id = 0;
  int32_t num_new_output_tokens = 0;  // tokens produced this step, all at the step's end time
  bool first_scheduled = false;       // this step was its first
  bool first_token = false;           // its first output token came out this step
  bool finished = false;              // its last output token came out; blocks are released
  int32_t num_preemptions = 0;        // times it was preempted so far
  int64_t num_prefix_hit_tokens = 0;  // prefix-cache hit tokens at its first admission
};

// Why add_request refused a request (it never enters the scheduler).
enum class RejectReason : uint8_t {
  none,                   // accepted
  duplicate_id,           // a request with this id is already in the scheduler
  empty_prompt,           // prompt_tokens < 1
  no_output_tokens,       // output_tokens < 1
  exceeds_max_model_len,  // prompt + output tokens > max_model_len
  exceeds_kv_capacity,    // its KV (prompt + output - 1 tokens) can never fit the GPU pool
                          // minus the watermark
};
std::string_view reject_reason_name(RejectReason reason);

}  // namespace tidal::sched
