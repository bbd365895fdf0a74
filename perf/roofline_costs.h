// FLOPs and bytes per operator for one deployment, turned into seconds by the roofline rule
// time = max(flops / (peak * compute_eff), bytes / (bandwidth * memory_eff)).
#pragma once

#include <array>
#include <span>
#include <vector>

#include "perf/gpu_catalog.h"
#include "perf/memory_plan.h"
#include "perf/model_catalog.h"
#include "perf/op_work.h"
#include "perf/roofline_attention.h"
#include "perf/roofline_linear_attention.h"
#include "perf/roofline_model.h"
#include "perf/step_costs.h"
#include "perf/weight_formats.h"

namespace tidal::perf {

// The GEMMs one layer runs for an op class (MLA's query and latent projections are three, an MoE
// layer's routed and shared experts two), each at the tensor rate of its weights' format. In a
// hybrid of linear and full attention the attention projections differ by layer: each GEMM runs
// in its `share` of the class's layers (the full-attention layers' q/k/v, the linear layers'
// input projections), so that a class's whole-step cost stays layers x the layer's.
struct LayerGemms {
  struct Gemm {
    OpWork work;
    double peak_flops = 0.0;
    double share = 1.0;
  };
  std::array<Gemm, 3> gemms{};
  int num_gemms = 0;

  void add(const OpWork& work, double peak_flops, double share = 1.0) {
    gemms[num_gemms++] = {work, peak_flops, share};
  }
};

// RooflineCosts::token_work by token count, kept as it is computed (a step-work counter asks for
// the same few decode batch sizes millions of times). Counts above kMaxTokens are not kept.
class TokenWorkMemo {
 public:
  static constexpr int64_t kMaxTokens = 1024;
  // The remembered work for `num_tokens`, or null.
  const OpWork* find(int64_t num_tokens) const {
    const auto t = static_cast<size_t>(num_tokens);
    return t < known_.size() && known_[t] != 0 ? &work_[t] : nullptr;
  }
  void keep(int64_t num_tokens, const OpWork& work) {
    if (num_tokens > kMaxTokens) return;
    const auto t = static_cast<size_t>(num_tokens);
    if (t >= known_.size()) {
      known_.resize(t + 1, 0);
      work_.resize(t + 1);
    }
    work_[t] = work;
    known_[t] = 1;
  }

 private:
  std::vector<OpWork> work_;  // [largest count kept + 1]
  std::vector<char> known_;   // [largest count kept + 1]
};

// What a step's time and work need of a batch where the GQA sums suffice
// (RooflineCosts::prices_by_sums): its counts and its sums over attention to every token.
struct RankSums {
  BatchCounts counts;
  GqaBatchSums full;
};
// A batch's RankSums, in one pass.
RankSums rank_sums(std::span<const SeqWork> batch);

class RooflineCosts final : public StepCosts {
 public:
  // Checks the deployment (tp against heads) and the options; InputError on bad values.
  RooflineCosts(const ModelSpec& model, const GpuSpec& gpu, const Deployment& deployment,
                const RooflineOptions& options);

  double token_seconds(OpClass op, int64_t num_tokens) const override;
  double seq_seconds(OpClass op, int64_t count) const override;
  AttentionSeconds attention_seconds(std::span<const SeqWork> batch) const override;
  // The linear-attention layers' part of attention_seconds (0 without such layers).
  AttentionSeconds linear_attention_seconds(std::span<const SeqWork> batch) const;
  double swap_seconds(int64_t num_blocks) const override;
  // With attention_dp > 1: the routed experts (moe_experts) and the dispatch and combine
  // (allreduce) of every MoE layer, over the replica's num_tokens.
  double shared_token_seconds(OpClass op, int64_t num_tokens) const override;

  // One MoE layer's routed experts on one GPU for num_tokens tokens of the replica: the GPU holds
  // num_experts / ep experts, each split moe_tp ways, and computes the tokens routed to them
  // (num_tokens * top_k / ep assignments under uniform routing). With a skewed expert_load, the
  // work of the slowest rank (expert_load.h).
  OpWork routed_expert_work(double num_tokens) const;
  // The routed experts' seconds under the deployment's expert_load over those under uniform
  // routing, for num_tokens tokens (1 when balanced): what the kernel tables' uniform-routing
  // rows are scaled by.
  double routed_expert_skew_factor(double num_tokens) const;
  // One all-to-all (dispatch or combine) of one MoE layer over the replica's GPUs for num_tokens
  // tokens of the replica; 0 without attention data parallelism (the tokens are already on every
  // GPU of the TP group, and the all-reduce combines the experts' outputs).
  double alltoall_seconds(double num_tokens) const;
  // Bytes one GPU sends in one such all-to-all: its share num_tokens / num_gpus of the tokens,
  // each to the GPUs of the expert groups its top_k experts fall in, other than itself:
  // (num_gpus - 1) * (1 - (1 - 1/ep)^top_k) GPUs per token (uniform routing), hidden values of 2
  // bytes each.
  double alltoall_bytes_per_gpu(double num_tokens) const;

  // One layer's work of a token op class (emb/final norm included once in `norm` and
  // `embedding` as per-step work; a class of several GEMMs summed). Exposed for tests and docs.
  OpWork layer_work(OpClass op, int64_t num_tokens) const;
  // The GEMMs behind layer_work of a GEMM class (qkv_proj, o_proj, mlp_up_gate, mlp_down,
  // moe_router, moe_experts); none for the others. With attention_dp > 1 moe_experts holds only
  // the shared experts, which run in each rank on its own tokens (routed_expert_work: the rest).
  LayerGemms layer_gemms(OpClass op, int64_t num_tokens) const;
  // One ring all-reduce of `bytes` bytes across the TP group (0 when tp == 1).
  double allreduce_seconds(double bytes) const;
  // The tensor FLOP/s the weight dtype computes at on this GPU.
  double gemm_peak_flops() const { return gemm_peak_flops_; }
  // The whole step's work on one GPU (every layer, the embedding, LM head, sampling and
  // attention; collectives and CPU overhead move no HBM bytes and do no FLOPs), by the same
  // counts token_seconds, seq_seconds and attention_seconds price. With attention_dp > 1: the
  // mean over the ranks (RankSplit) of a rank's own work, plus the routed experts' over all
  // tokens.
  // `memo` (optional) remembers token_work by token count between calls.
  OpWork step_work(std::span<const SeqWork> batch, TokenWorkMemo* memo = nullptr) const;
  // The part of one rank's step work that depends only on its token count: the embedding, the
  // final norm and every layer's token op classes, summed in rank_work's order.
  OpWork token_work(int64_t num_tokens) const;

  // Whether a step's time and work follow from its RankSums: grouped-query attention over every
  // token in every layer (no latent, sliding or linear attention) and one attention rank. A
  // repeated decode step's sums then follow from the previous step's
  // (GqaBatchSums::advance_repeated_step) without a pass over the batch.
  bool prices_by_sums() const;
  // step_work and attention_seconds from the batch's sums; prices_by_sums() only. The same sums
  // in the same order as from the batch: bit-identical.
  OpWork rank_work(const RankSums& sums, TokenWorkMemo* memo) const;
  AttentionSeconds attention_seconds(const RankSums& sums) const;

 private:
  OpWork embedding_work(double num_tokens) const;   // gather [t, h] rows once per step
  OpWork final_norm_work(double num_tokens) const;  // the final RMSNorm: read and write [t, h]
  OpWork lm_head_work(double num_logit_rows) const;
  OpWork sampling_work(double num_logit_rows) const;
  // step_work of one rank's own classes
  OpWork rank_work(std::span<const SeqWork> batch, TokenWorkMemo* memo) const;
  // rank_work's token and logit-row part: token_work (remembered in `memo`), LM head, sampling.
  OpWork token_and_row_work(const BatchCounts& counts, TokenWorkMemo* memo) const;
  // routed_expert_work on expert-parallel rank `rank` under `load`.
  OpWork rank_routed_expert_work(double num_tokens, const ExpertLoad& load, int32_t rank) const;
  double gemm_seconds(const OpWork& work, double peak_flops) const;
  double gemms_seconds(const LayerGemms& gemms) const;
  double elementwise_seconds(double bytes, double num_kernels) const;
  double attention_layer_seconds(const OpWork& work) const;

  ModelSpec model_;
  GpuSpec gpu_;
  Deployment deployment_;
  RooflineOptions options_;
  WeightFormats formats_;
  double gemm_peak_flops_ = 0.0;           // the served weight dtype's tensor rate
  double kv_bytes_ = 0.0;                  // per KV element
  double heads_per_gpu_ = 0.0;             // query heads
  double kv_heads_per_gpu_ = 0.0;          // key/value heads
  double kv_bytes_per_token_ = 0.0;        // per block token, this GPU (memory_plan.h)
  AttentionShape full_attention_;          // layers attending to every token
  AttentionShape sliding_attention_;       // layers attending to the last sliding_window tokens
  LinearAttentionShape linear_attention_;  // Gated DeltaNet layers
  double attention_share_ = 1.0;           // of the layers: softmax attention (full or sliding)
  double linear_share_ = 0.0;              // of the layers: linear attention
};

}  // namespace tidal::perf
