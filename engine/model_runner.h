// Turns a scheduler plan into one forward batch (token ids, positions, slot mapping from the
// block manager's tables), runs it on the tensor-parallel executor, and exposes the logits rows
// of every sampling sequence.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/kv/block_manager.h"
#include "engine/sched/step_plan.h"
#include "engine/tensor_parallel_executor.h"
#include "models/paged_forward.h"

namespace tidal::engine {

class ModelRunner {
 public:
  explicit ModelRunner(TensorParallelExecutor& executor) : executor_(executor) {}

  // Runs plan.seqs. known_tokens[i]: every known token of seq i's request (prompt + generated);
  // drafts[i]: its draft tokens, [plan.seqs[i].num_spec_tokens]. Seq i computes positions
  // [num_context_tokens, num_context_tokens + num_new_tokens); those beyond the known tokens
  // are its drafts.
  void execute(const sched::StepPlan& plan, const kv::BlockManager& blocks,
               std::span<const std::span<const int32_t>> known_tokens,
               std::span<const std::vector<int32_t>> drafts);

  // Logits of seq i's last 1 + num_spec_tokens positions: [1 + num_spec_tokens, vocab];
  // nullptr when seq i does not sample.
  const float* sampled_logits(size_t seq) const {
    return first_row_[seq] < 0 ? nullptr : logits_.data() + first_row_[seq] * vocab_size_;
  }
  int64_t vocab_size() const { return vocab_size_; }

 private:
  TensorParallelExecutor& executor_;
  int64_t vocab_size_ = 0;
  models::ForwardBatch batch_;
  std::vector<float> logits_;       // [rows, vocab]
  std::vector<int64_t> first_row_;  // [num seqs] first sampled row, -1 when not sampling
};

}  // namespace tidal::engine
