// SchedulerCore: repeated decode steps. Most steps of a busy replica schedule the same running
// requests as the step before, each one token further; repeat_step() does for such a step what
// update() and the next begin_step .. finish_step would, in one pass over the batch, and leaves
// the same state behind (tests/sched/sched_repeat_test.cpp steps both ways and compares).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/sched/sched_core.h"

namespace tidal::sched {

namespace {

void require(bool condition, const char* what) {
  if (!condition) throw std::logic_error(std::string("sched::Scheduler: ") + what);
}

}  // namespace

bool SchedulerCore::repeats_pending_plan(bool policy_admits) const {
  if (!plan_pending_ || !plan_.preempted.empty() || !plan_.swap_in.empty() ||
      !plan_.swap_out.empty()) {
    return false;
  }
  // Nothing could join the next step: nothing swapped out, nothing the policy would admit, no
  // offload-tier load finishing (begin_step tells the tiers the time), no drafts to verify.
  if (!swapped_.empty() || (policy_admits && num_waiting() > 0) || kv_.tiers() != nullptr ||
      config_.num_speculative_tokens != 0) {
    return false;
  }
  if (plan_slots_.size() != running_.size()) return false;  // some running request sat out
  const int64_t block_size = kv_.block_size();
  for (size_t i = 0; i < plan_.seqs.size(); ++i) {
    const ScheduledSeq& seq = plan_.seqs[i];
    if (!seq.samples || seq.num_new_tokens != 1) return false;
    const SeqState& st = seqs_[static_cast<size_t>(plan_slots_[i])];
    const int64_t num_computed = st.num_computed_tokens + 1;  // after this step
    // Its token this step is not its last; its next fits the blocks it holds (the step's
    // allocation left its last block its own, so no copy-on-write either); this step fills no
    // block for the prefix cache.
    if (st.num_output_tokens + 1 >= st.num_target_output_tokens) return false;
    if (num_computed + 1 > st.num_held_blocks * block_size) return false;
    if (prefix_caching_ && num_computed / block_size > st.num_cached_blocks) return false;
  }
  return true;
}

std::optional<std::span<const RequestEvent>> SchedulerCore::repeat_step(int64_t now_ns,
                                                                        bool policy_admits) {
  if (!repeats_pending_plan(policy_admits)) return std::nullopt;
  const int64_t num_free_blocks = kv_.num_free_blocks();
  // update(): one token for each sequence, none finishing.
  events_.clear();
  for (size_t i = 0; i < plan_.seqs.size(); ++i) {
    const int32_t slot = plan_slots_[i];
    SeqState& st = state(slot);
    ++st.num_computed_tokens;
    RequestEvent event;
    event.request_id = st.request_id;
    event.first_scheduled = plan_.seqs[i].first_scheduled;
    event.first_token = st.num_output_tokens == 0;
    ++st.num_output_tokens;
    waiting_->on_output_tokens(slot, 1);
    event.num_new_output_tokens = 1;
    event.num_preemptions = st.num_preemptions;
    event.num_prefix_hit_tokens = st.num_first_prefix_hit_tokens;
    events_.push_back(event);
    require(kv_.allocate_slots(st.request_id, st.num_computed_tokens + 1),
            "a repeated step's slot did not fit its blocks");
  }
  require(kv_.num_free_blocks() == num_free_blocks, "a repeated step took a KV block");
  // begin_step() .. finish_step(): every running request again, in running order, one token.
  ++step_;
  now_ns_ = now_ns;
  num_budget_tokens_left_ = config_.max_num_batched_tokens - plan_.num_batched_tokens;
  note_running_adapters();
  if (std::equal(plan_slots_.begin(), plan_slots_.end(), running_.begin())) {
    for (size_t i = 0; i < plan_.seqs.size(); ++i) {
      SeqState& st = state(plan_slots_[i]);
      ScheduledSeq& seq = plan_.seqs[i];
      seq.num_context_tokens = st.num_computed_tokens;
      seq.num_prefix_hit_tokens = 0;
      seq.first_scheduled = false;
      st.spec_override = -1;
      st.scheduled_step = step_;
    }
  } else {  // an admission went before running requests in running order: rebuild in order
    const int64_t num_batched_tokens = plan_.num_batched_tokens;
    plan_.clear();
    plan_slots_.clear();
    num_budget_tokens_left_ += num_batched_tokens;
    for (size_t i = 0; i < running_.size(); ++i) add_scheduled(running_[i], 1, 0);
  }
  ++stats_.num_steps;
  stats_.num_scheduled_tokens += plan_.num_batched_tokens;
  return std::span<const RequestEvent>(events_);
}

}  // namespace tidal::sched
