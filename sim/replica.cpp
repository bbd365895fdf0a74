#include "sim/replica.h"

#include <algorithm>
#include <cmath>

namespace tidal::sim {

Replica::Replica(int32_t index, int32_t pool, const PoolSpec& spec)
    : index_(index),
      pool_(pool),
      block_manager_(spec.kv),
      scheduler_(spec.scheduler, block_manager_),
      step_model_(*spec.step_model) {}

int64_t Replica::plan_step(int64_t now_ns) {
  const sched::StepPlan& plan = scheduler_.schedule(now_ns);
  plan_ = &plan;
  if (plan.empty()) return -1;
  work_.resize(plan.seqs.size());
  for (size_t i = 0; i < plan.seqs.size(); ++i) {
    work_[i] = perf::SeqWork{plan.seqs[i].num_new_tokens, plan.seqs[i].num_context_tokens};
  }
  double seconds = step_model_.step_seconds(work_);
  const int64_t num_swapped_blocks = plan.num_swap_out_blocks() + plan.num_swap_in_blocks();
  if (num_swapped_blocks > 0) seconds += step_model_.swap_seconds(num_swapped_blocks);
  // Positive: rounding by adding a half is exact enough and avoids a libm call per step.
  return std::max<int64_t>(1, static_cast<int64_t>(seconds * 1e9 + 0.5));
}

}  // namespace tidal::sim
