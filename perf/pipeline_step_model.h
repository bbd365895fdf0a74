// Pipeline parallelism's step time (Deployment::pp > 1): a step's sequences are split into
// micro-batches that flow through the stages, each stage holding its layers (pipeline_stages.h)
// on its own GPUs.
//
// The engines keep up to pp micro-batches in flight (vLLM V1's batch queue of pp batches,
// SGLang's and TensorRT-LLM's pipeline micro-batches); a sequence's next token waits for its
// micro-batch to leave the last stage. A step here is one token for every sequence of the plan:
// the plan's sequences are split round-robin into m = min(pp, sequences) micro-batches
// (perf::RankSplit), and in the steady state of a pipeline kept full from step to step the step
// takes
//
//   max( max over stages s of  sum over micro-batches i of T_s(i),          (the busiest stage)
//        max over micro-batches i of  sum over s of T_s(i) + (pp - 1) x X(i) )  (one trip through)
//
// where T_s(i) is stage s's part of micro-batch i: each op class of the whole model priced on i
// (the wrapped model, one stage's GPUs) times the share of that class's layers stage s holds; the
// embedding on the first stage, the LM head and sampling on the last, and the host's per-step
// CPU overhead of micro-batch i before it enters the first stage. X(i) is one hop between stages:
// pp_link_latency_s + i's activations (hidden state and residual, bf16, num_tokens x hidden x 2
// values) over pp_link_gb_per_s. With fewer sequences than stages the pipeline has bubbles (m <
// pp micro-batches); one sequence's prefill crosses every stage in turn.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "perf/memory_plan.h"
#include "perf/model_spec.h"
#include "perf/step_time_model.h"

namespace tidal::perf {

class PipelineStepModel final : public StepTimeModel {
 public:
  // `whole_model` prices the whole model on one stage's GPUs (built for `deployment` with pp 1).
  PipelineStepModel(std::shared_ptr<const StepTimeModel> whole_model, const ModelSpec& model,
                    const Deployment& deployment);

  double step_seconds(std::span<const SeqWork> batch) const override;
  // Every stage copies its own layers' share of the blocks over its own links, in parallel.
  double swap_seconds(int64_t num_blocks) const override;
  // The step's work by op class over every stage and micro-batch, scaled so it sums to
  // step_seconds().
  StepBreakdown breakdown(std::span<const SeqWork> batch) const override;

 private:
  // Seconds per stage of one micro-batch, and its hop between stages.
  struct MicroBatchTimes {
    std::vector<double> stage_seconds;  // [pp]
    double hop_seconds = 0.0;
    StepBreakdown work;  // its op classes summed over the stages
  };
  void time_micro_batch(std::span<const SeqWork> micro_batch, MicroBatchTimes& out) const;
  // The step's duration and, when `work` is not null, its summed work by op class.
  double pipeline_seconds(std::span<const SeqWork> batch, StepBreakdown* work) const;

  std::shared_ptr<const StepTimeModel> whole_model_;
  int32_t pp_ = 1;
  double hidden_ = 0.0;
  double link_bytes_per_s_ = 0.0;
  double link_latency_s_ = 0.0;
  double swap_share_ = 1.0;  // the largest stage's share of a block's KV bytes
  std::vector<std::array<double, kNumOpClasses>> stage_shares_;  // [pp][op class]
};

}  // namespace tidal::perf
