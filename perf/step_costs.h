// Mechanism shared by the roofline and profiled models: a step's cost splits into parts that
// depend only on the batch's token count, parts that depend only on its sequence count, and
// attention, which depends on every sequence. TabulatedStepModel precomputes the first two over
// all counts up to a limit so step_seconds() is a table look-up plus one pass over the batch.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "perf/attention_dp.h"
#include "perf/model_catalog.h"
#include "perf/step_time_model.h"

namespace tidal::perf {

// Op classes whose step cost is a function of num_tokens (the batch's new tokens).
inline constexpr std::array<OpClass, 12> kTokenOpClasses{
    OpClass::embedding,  OpClass::norm,        OpClass::qkv_proj,     OpClass::rope,
    OpClass::o_proj,     OpClass::mlp_up_gate, OpClass::mlp_act,      OpClass::mlp_down,
    OpClass::moe_router, OpClass::moe_experts, OpClass::residual_add, OpClass::allreduce,
};
// Op classes with a part that runs once over every attention rank's tokens when the replica has
// attention data parallelism: the routed experts (moe_experts) and their all-to-all dispatch and
// combine (allreduce, the collectives' class).
inline constexpr std::array<OpClass, 2> kSharedTokenOpClasses{OpClass::moe_experts,
                                                              OpClass::allreduce};
// Op classes whose step cost is a function of the rows of logits computed and sampled (one per
// sequence with new tokens, 1 + k for a sequence verifying k drafts).
inline constexpr std::array<OpClass, 2> kRowOpClasses{OpClass::lm_head, OpClass::sampling};
// Op classes whose step cost is a function of num_seqs (sequences with new tokens).
inline constexpr std::array<OpClass, 1> kSeqOpClasses{OpClass::cpu_overhead};

// How many layers an op class runs in: MLP classes in the dense layers, MoE classes in the MoE
// layers, rope in the softmax-attention layers, every other per-layer class in all layers.
int64_t layers_running(const ModelSpec& model, OpClass op);

struct AttentionSeconds {
  double prefill = 0.0;  // all layers
  double decode = 0.0;   // all layers
};

// Counts a batch once: tokens and sequences with work this step.
struct BatchCounts {
  int64_t num_tokens = 0;
  int64_t num_seqs = 0;
  int64_t num_logit_rows = 0;
};
BatchCounts count_batch(std::span<const SeqWork> batch);

class RooflineCosts;

class StepCosts {
 public:
  virtual ~StepCosts() = default;
  // Whole-step seconds (all layers) of a token op class for num_tokens >= 0 tokens.
  virtual double token_seconds(OpClass op, int64_t num_tokens) const = 0;
  // Whole-step seconds of a row or sequence op class (kRowOpClasses, kSeqOpClasses) for
  // count >= 0 logit rows or sequences.
  virtual double seq_seconds(OpClass op, int64_t count) const = 0;
  virtual AttentionSeconds attention_seconds(std::span<const SeqWork> batch) const = 0;
  virtual double swap_seconds(int64_t num_blocks) const = 0;
  // cpu_overhead's share of the step's other classes' time (all but swaps); 0 by default.
  virtual double operator_share() const { return 0.0; }
  // With attention data parallelism (Deployment::attention_dp > 1) token_seconds prices one
  // rank's part of a class on that rank's tokens, and this the part of a kSharedTokenOpClasses
  // class that runs once over all ranks' tokens (num_tokens: the replica's). 0 by default and
  // without attention data parallelism (token_seconds then prices everything).
  virtual double shared_token_seconds(OpClass /*op*/, int64_t /*num_tokens*/) const { return 0.0; }
};

// With attention_dp > 1 ranks a step's sequences are split over the ranks (RankSplit,
// attention_dp.h); the step takes the slowest rank's own classes (attention, dense layers,
// LM head, sampling) plus the shared MoE part over every rank's tokens, and the CPU overhead of
// the rank with the most sequences (each rank runs its own scheduler process, as SGLang's DP
// attention does).
class TabulatedStepModel final : public StepTimeModel {
 public:
  TabulatedStepModel(std::unique_ptr<StepCosts> costs, int64_t max_precomputed_tokens,
                     int64_t max_precomputed_seqs, int32_t attention_dp = 1);

  double step_seconds(std::span<const SeqWork> batch) const override;
  double swap_seconds(int64_t num_blocks) const override;
  StepBreakdown breakdown(std::span<const SeqWork> batch) const override;
  bool prices_by_sums() const override { return roofline_ != nullptr; }
  double summed_step_seconds(const RankSums& sums) const override;

 private:
  double token_total(int64_t num_tokens) const;
  double row_total(int64_t num_logit_rows) const;  // sum over kRowOpClasses
  double seq_total(int64_t num_seqs) const;        // sum over kSeqOpClasses
  double shared_total(int64_t num_tokens) const;   // shared_token_seconds over its classes
  // A step on one attention rank: its operators, the CPU overhead's share of them and its
  // sequences' classes (step_seconds and summed_step_seconds alike).
  double one_rank_seconds(const BatchCounts& counts, const AttentionSeconds& attention) const;

  // One attention rank's own operators (token and row classes, attention) for its sequences.
  struct RankWork {
    BatchCounts counts;
    AttentionSeconds attention;
    double operators = 0.0;
  };
  RankWork rank_work(std::span<const SeqWork> rank) const;
  // The slowest rank of `split` (its index), the replica's tokens and the most sequences of a rank.
  struct SlowestRank {
    int32_t rank = 0;
    RankWork work;
    int64_t num_tokens = 0;
    int64_t most_seqs = 0;
  };
  SlowestRank slowest_rank(const RankSplit& split) const;
  double data_parallel_step_seconds(std::span<const SeqWork> batch) const;
  StepBreakdown data_parallel_breakdown(std::span<const SeqWork> batch) const;

  std::unique_ptr<StepCosts> costs_;
  // costs_ where it is a roofline that prices by sums (RooflineCosts::prices_by_sums), else null.
  const RooflineCosts* roofline_ = nullptr;
  int32_t attention_dp_ = 1;
  std::vector<double> token_totals_;   // [max_precomputed_tokens + 1], sum over kTokenOpClasses
  std::vector<double> shared_totals_;  // [max_precomputed_tokens + 1] with attention_dp > 1, else
                                       // empty: shared_token_seconds over kSharedTokenOpClasses
  std::vector<double> row_totals_;     // [max_precomputed_seqs + 1], sum over kRowOpClasses
  std::vector<double> seq_totals_;     // [max_precomputed_seqs + 1], sum over kSeqOpClasses
};

}  // namespace tidal::perf
