#include "perf/lossy_step_model.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tidal::perf {

namespace {

// Operator classes run once per layer; the others (embedding, LM head, sampling, host time)
// run once per step whatever the layers.
bool per_layer(OpClass op) {
  switch (op) {
    case OpClass::embedding:
    case OpClass::lm_head:
    case OpClass::sampling:
    case OpClass::cpu_overhead:
      return false;
    default:
      return true;
  }
}

}  // namespace

int64_t LossySpec::attended_context(int64_t context_tokens) const {
  int64_t tokens = context_tokens;
  if (kv_kept_ratio < 1.0) {
    tokens = static_cast<int64_t>(std::ceil(static_cast<double>(tokens) * kv_kept_ratio));
  }
  if (kv_window_tokens > 0) tokens = std::min(tokens, kv_window_tokens);
  return tokens;
}

LossyStepModel::LossyStepModel(std::shared_ptr<const StepTimeModel> exact, const LossySpec& lossy)
    : exact_(std::move(exact)), lossy_(lossy) {}

std::span<const SeqWork> LossyStepModel::attended(std::span<const SeqWork> batch) const {
  thread_local std::vector<SeqWork> buffer;  // [batch size], reused between steps
  buffer.assign(batch.begin(), batch.end());
  for (SeqWork& seq : buffer)
    seq.num_context_tokens = lossy_.attended_context(seq.num_context_tokens);
  return buffer;
}

double LossyStepModel::step_seconds(std::span<const SeqWork> batch) const {
  if (lossy_.layer_skip_share == 0.0) return exact_->step_seconds(attended(batch));
  return breakdown(batch).total_seconds();
}

double LossyStepModel::swap_seconds(int64_t num_blocks) const {
  return exact_->swap_seconds(
      static_cast<int64_t>(std::ceil(static_cast<double>(num_blocks) * lossy_.kv_bytes_share())));
}

StepBreakdown LossyStepModel::breakdown(std::span<const SeqWork> batch) const {
  StepBreakdown work = exact_->breakdown(attended(batch));
  const double layers_run = 1.0 - lossy_.layer_skip_share;
  for (int op = 0; op < kNumOpClasses; ++op) {
    if (per_layer(static_cast<OpClass>(op))) work.seconds[static_cast<size_t>(op)] *= layers_run;
  }
  return work;
}

}  // namespace tidal::perf
