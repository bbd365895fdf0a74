// The step-time interface the simulator uses: how long one engine step takes for a planned batch.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace tidal::perf {

// One sequence's share of a step: num_new_tokens computed this step on top of
// num_context_tokens already in the KV cache. num_new_tokens == 1 with context > 0 is a decode;
// 1 + k sampled tokens on a context is a speculative verification; anything else is a prefill
// chunk. num_logit_rows: rows of logits the step computes and samples for it: 1, 1 + k when it
// verifies k drafted tokens, 0 for a prefill chunk that does not reach the end of its prompt
// (nothing is sampled).
struct SeqWork {
  int64_t num_new_tokens = 0;
  int64_t num_context_tokens = 0;
  int64_t num_logit_rows = 1;
};

// One new token on a non-empty context.
inline bool is_decode(const SeqWork& seq) {
  return seq.num_new_tokens == 1 && seq.num_context_tokens > 0;
}

// The rows a sequence puts through the engines' decode (generation) attention kernels: 1 for a
// decode; 1 + k for a speculative verification (1 + k new tokens on a non-empty context, every
// one sampled), which the engines run through those kernels with 1 + k query tokens (TensorRT-LLM
// MTP, vLLM and SGLang MLA and FlashInfer backends) and which AIConfigurator counts as 1 + k
// decode requests at the sequence's context (its `predict_decode`: batch x (nextn + 1)); 0 for
// a prefill chunk.
inline int64_t decode_rows(const SeqWork& seq) {
  if (seq.num_context_tokens <= 0 || seq.num_new_tokens <= 0) return 0;
  if (seq.num_new_tokens == 1 || seq.num_new_tokens == seq.num_logit_rows) {
    return seq.num_new_tokens;
  }
  return 0;
}

// Operator classes a step's time is split into.
enum class OpClass : int {
  embedding,
  norm,  // RMSNorms: two per layer plus the final one
  qkv_proj,
  rope,
  attention_prefill,
  attention_decode,
  o_proj,
  mlp_up_gate,
  mlp_act,
  mlp_down,
  moe_router,
  moe_experts,  // routed + shared expert GEMMs
  residual_add,
  lm_head,
  sampling,
  allreduce,  // tensor-parallel collectives
  cpu_overhead,
};
inline constexpr int kNumOpClasses = static_cast<int>(OpClass::cpu_overhead) + 1;

std::string_view op_class_name(OpClass op);
// Inverse of op_class_name; returns false for an unknown name.
bool parse_op_class(std::string_view name, OpClass* op);

// Seconds per operator class for one whole step (all layers).
struct StepBreakdown {
  std::array<double, kNumOpClasses> seconds{};

  double& operator[](OpClass op) { return seconds[static_cast<std::size_t>(op)]; }
  double operator[](OpClass op) const { return seconds[static_cast<std::size_t>(op)]; }
  double total_seconds() const;
};

struct RankSums;  // roofline_costs.h

class StepTimeModel {
 public:
  virtual ~StepTimeModel() = default;
  // Duration of one step, CPU overhead included. Empty batch -> 0. Cheap: no allocation.
  virtual double step_seconds(std::span<const SeqWork> batch) const = 0;
  // PCIe copy of num_blocks KV blocks between GPU and host (each GPU copies its shard in
  // parallel over its own link).
  virtual double swap_seconds(int64_t num_blocks) const = 0;
  // The same step split by operator class; total_seconds() equals step_seconds() up to rounding.
  virtual StepBreakdown breakdown(std::span<const SeqWork> batch) const = 0;
  // Whether step_seconds follows from a batch's RankSums (roofline_costs.h: the roofline over
  // grouped-query attention to every token, one attention rank), so that a repeated decode step
  // is priced without a pass over its batch. False unless a model says so.
  virtual bool prices_by_sums() const { return false; }
  // step_seconds of the batch `sums` sums, bit-identical; prices_by_sums() only.
  virtual double summed_step_seconds(const RankSums& sums) const;
};

}  // namespace tidal::perf
