#include "perf/pipeline_step_model.h"

#include <algorithm>

#include "perf/attention_dp.h"
#include "perf/pipeline_stages.h"
#include "perf/step_costs.h"

namespace tidal::perf {
namespace {

// Activations sent from one stage to the next per token: the hidden state and the residual
// stream, bf16 (vLLM's IntermediateTensors of the Llama family).
constexpr double kHopValuesPerHidden = 2.0;
constexpr double kActivationBytes = 2.0;

// The share of op class `op` that `stage` runs: its layers of the class over the model's, the
// embedding on the first stage, the LM head and sampling on the last; the host's CPU overhead is
// charged apart (0 here).
double stage_share(const ModelSpec& model, const PipelineStage& stage, OpClass op) {
  switch (op) {
    case OpClass::embedding:
      return stage.has_embedding ? 1.0 : 0.0;
    case OpClass::lm_head:
    case OpClass::sampling:
      return stage.has_lm_head ? 1.0 : 0.0;
    case OpClass::cpu_overhead:
      return 0.0;
    default: {
      const int64_t total = layers_running(model, op);
      if (total == 0) return 0.0;
      return static_cast<double>(layers_running(stage_layers_model(model, stage), op)) /
             static_cast<double>(total);
    }
  }
}

// The micro-batches of the step being priced: one split per thread, reused from step to step.
RankSplit& thread_micro_batches() {
  thread_local RankSplit split;
  return split;
}

}  // namespace

PipelineStepModel::PipelineStepModel(std::shared_ptr<const StepTimeModel> whole_model,
                                     const ModelSpec& model, const Deployment& deployment)
    : whole_model_(std::move(whole_model)),
      pp_(deployment.pp),
      hidden_(static_cast<double>(model.hidden)),
      link_bytes_per_s_(deployment.pp_link_gb_per_s * 1e9),
      link_latency_s_(deployment.pp_link_latency_s) {
  const std::vector<PipelineStage> stages = split_layers(model.num_layers, pp_);
  const double whole_kv = kv_bytes_per_token_per_gpu(model, deployment);
  swap_share_ = 0.0;
  for (const PipelineStage& stage : stages) {
    std::array<double, kNumOpClasses> shares{};
    for (int op = 0; op < kNumOpClasses; ++op) {
      shares[static_cast<size_t>(op)] = stage_share(model, stage, static_cast<OpClass>(op));
    }
    stage_shares_.push_back(shares);
    const double stage_kv =
        kv_bytes_per_token_per_gpu(stage_layers_model(model, stage), deployment);
    swap_share_ = std::max(swap_share_, whole_kv > 0.0 ? stage_kv / whole_kv : 1.0);
  }
}

void PipelineStepModel::time_micro_batch(std::span<const SeqWork> micro_batch,
                                         MicroBatchTimes& out) const {
  const StepBreakdown whole = whole_model_->breakdown(micro_batch);
  out.stage_seconds.assign(static_cast<size_t>(pp_), 0.0);
  out.work = StepBreakdown{};
  int64_t num_tokens = 0;
  for (const SeqWork& seq : micro_batch) num_tokens += seq.num_new_tokens;
  for (size_t s = 0; s < stage_shares_.size(); ++s) {
    for (int op = 0; op < kNumOpClasses; ++op) {
      const double seconds =
          whole.seconds[static_cast<size_t>(op)] * stage_shares_[s][static_cast<size_t>(op)];
      out.stage_seconds[s] += seconds;
      out.work.seconds[static_cast<size_t>(op)] += seconds;
    }
  }
  // The host schedules and launches the micro-batch before its first stage runs.
  out.stage_seconds.front() += whole[OpClass::cpu_overhead];
  out.work[OpClass::cpu_overhead] += whole[OpClass::cpu_overhead];
  const double hop_bytes =
      static_cast<double>(num_tokens) * hidden_ * kHopValuesPerHidden * kActivationBytes;
  out.hop_seconds = link_latency_s_ + hop_bytes / link_bytes_per_s_;
}

double PipelineStepModel::pipeline_seconds(std::span<const SeqWork> batch,
                                           StepBreakdown* work) const {
  int64_t num_seqs = 0;
  for (const SeqWork& seq : batch) num_seqs += seq.num_new_tokens > 0 ? 1 : 0;
  if (num_seqs == 0) return 0.0;
  RankSplit& split = thread_micro_batches();
  split.split(batch, static_cast<int32_t>(std::min<int64_t>(pp_, num_seqs)));
  thread_local MicroBatchTimes times;
  thread_local std::vector<double> stage_busy;  // [pp] seconds each stage works this step
  stage_busy.assign(static_cast<size_t>(pp_), 0.0);
  double longest_trip = 0.0;
  for (int32_t i = 0; i < split.num_ranks(); ++i) {
    time_micro_batch(split.rank(i), times);
    double trip = static_cast<double>(pp_ - 1) * times.hop_seconds;
    for (size_t s = 0; s < stage_busy.size(); ++s) {
      stage_busy[s] += times.stage_seconds[s];
      trip += times.stage_seconds[s];
    }
    longest_trip = std::max(longest_trip, trip);
    if (work != nullptr) {
      for (size_t op = 0; op < work->seconds.size(); ++op) {
        work->seconds[op] += times.work.seconds[op];
      }
    }
  }
  return std::max(*std::max_element(stage_busy.begin(), stage_busy.end()), longest_trip);
}

double PipelineStepModel::step_seconds(std::span<const SeqWork> batch) const {
  return pipeline_seconds(batch, nullptr);
}

double PipelineStepModel::swap_seconds(int64_t num_blocks) const {
  return whole_model_->swap_seconds(num_blocks) * swap_share_;
}

StepBreakdown PipelineStepModel::breakdown(std::span<const SeqWork> batch) const {
  StepBreakdown work;
  const double seconds = pipeline_seconds(batch, &work);
  const double total = work.total_seconds();
  if (total > 0.0) {
    for (double& part : work.seconds) part *= seconds / total;
  }
  return work;
}

}  // namespace tidal::perf
