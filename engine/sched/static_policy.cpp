#include "engine/sched/static_policy.h"

#include <algorithm>
#include <cmath>

#include "engine/sched/sched_core.h"

namespace tidal::sched {
namespace {

class StaticPolicy final : public BatchPolicy {
 public:
  explicit StaticPolicy(const SchedulerConfig& config)
      : batch_size_(config.static_batch_size),
        timeout_ns_(std::llround(config.static_batch_timeout_s * 1e9)) {}

  void plan_step(SchedulerCore& core, int64_t now_ns) override {
    if (!batch_active(core)) {
      if (!batch_ready(core, now_ns)) return;
      for (int64_t i = num_members_that_fit(core); i > 0; --i) core.enroll_next();
    }
    // Prefill steps until every member has its first token, then decode steps.
    core.schedule_running(RunningPass::prefills, true);
    if (core.num_scheduled() > 0) return;
    core.schedule_running(RunningPass::all, false);
    while (core.swap_in_next(false)) {
    }
  }

  bool admits_beside_running() const override { return false; }

  int64_t next_wakeup_ns(const SchedulerCore& core) const override {
    if (batch_active(core) || core.num_waiting() == 0 || core.num_waiting() >= batch_size_) {
      return Scheduler::kNoWakeup;
    }
    return core.oldest_waiting_added_ns() + timeout_ns_;
  }

 private:
  static bool batch_active(const SchedulerCore& core) {
    return core.num_running() + core.num_swapped() > 0;
  }
  bool batch_ready(const SchedulerCore& core, int64_t now_ns) const {
    if (core.num_waiting() == 0) return false;
    return core.num_waiting() >= batch_size_ ||
           now_ns - core.oldest_waiting_added_ns() >= timeout_ns_;
  }
  // How many of the waiting requests, FCFS, form the next batch: at most batch_size_, while
  // the padded batch's blocks fit.
  int64_t num_members_that_fit(const SchedulerCore& core) const {
    const int64_t num_candidates =
        std::min({static_cast<int64_t>(batch_size_), core.num_waiting(),
                  static_cast<int64_t>(core.config().max_num_seqs) - core.num_running()});
    int64_t max_prompt_tokens = 0;
    int64_t max_output_tokens = 0;
    int64_t num_members = 0;
    while (num_members < num_candidates) {
      const SeqState& st = core.waiting_at(num_members);
      const int64_t prompt = std::max(max_prompt_tokens, st.num_prompt_tokens);
      const int64_t output = std::max(max_output_tokens, st.num_target_output_tokens);
      const int64_t num_padded_blocks =
          (num_members + 1) * core.num_blocks_for(prompt + output - 1);
      if (num_padded_blocks > core.num_admissible_blocks()) break;
      max_prompt_tokens = prompt;
      max_output_tokens = output;
      ++num_members;
    }
    return num_members;
  }

  int32_t batch_size_;
  int64_t timeout_ns_;
};

}  // namespace

std::unique_ptr<BatchPolicy> make_static_policy(const SchedulerConfig& config) {
  return std::make_unique<StaticPolicy>(config);
}

}  // namespace tidal::sched
