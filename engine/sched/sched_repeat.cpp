// SchedulerCore: repeated decode steps. Most steps of a busy replica schedule the same running
// requests as the step before, each one token further; repeat_step() does for such a step what
// update() and the next begin_step .. finish_step would, in the same order (every sequence's
// update, then the KV growth in running order), without the batching policy's passes, and leaves
// the same state behind (tests/sched/repeat_step_test.cpp steps both ways and compares).
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
  // Nothing could join the next step: nothing swapped out, no waiting request the policy could
  // admit (admit_next takes none while the running requests fill max_num_seqs or the token
  // budget), no offload-tier load finishing (begin_step tells the tiers the time), no drafts.
  // Formed ahead, the next step sees the arrivals of before this one began.
  const bool may_admit = policy_admits && num_waiting() > 0 &&
                         head_seen(first_unseen_by_next_step()) &&
                         num_running() < config_.max_num_seqs &&
                         plan_.num_batched_tokens < config_.max_num_batched_tokens;
  if (!swapped_.empty() || may_admit || kv_.tiers() != nullptr ||
      config_.num_speculative_tokens != 0) {
    return false;
  }
  if (plan_slots_.size() != running_.size()) return false;  // some running request sat out
  const int64_t block_size = kv_.block_size();
  int64_t num_new_blocks = 0;
  for (size_t i = 0; i < plan_.seqs.size(); ++i) {
    const ScheduledSeq& seq = plan_.seqs[i];
    if (!seq.samples || seq.num_new_tokens != 1) return false;
    const SeqState& st = seqs_[static_cast<size_t>(plan_slots_[i])];
    // Its token this step is not its last.
    if (st.num_output_tokens + 1 >= st.num_target_output_tokens) return false;
    // Its next token needs a block when it fills the ones it holds (the step's allocation left
    // its last block its own: no copy-on-write).
    if (st.num_computed_tokens + 2 > st.num_held_blocks * block_size) ++num_new_blocks;
  }
  // Growth that would preempt is no repeat.
  return num_new_blocks <= kv_.num_free_blocks();
}

std::optional<std::span<const RequestEvent>> SchedulerCore::repeat_step(int64_t now_ns,
                                                                        bool policy_admits) {
  if (!repeats_pending_plan(policy_admits)) return std::nullopt;
  // update(): one token for each sequence, none finishing.
  events_.clear();
  for (size_t i = 0; i < plan_.seqs.size(); ++i) {
    ++state(plan_slots_[i]).num_computed_tokens;
    append_step_event(plan_slots_[i], plan_.seqs[i], 1);
  }
  // begin_step() .. finish_step(): every running request again, in running order, one token,
  // its KV grown as schedule_running grows it.
  ++step_;
  now_ns_ = now_ns;
  note_arrivals_seen();
  num_budget_tokens_left_ = config_.max_num_batched_tokens - plan_.num_batched_tokens;
  note_running_adapters();
  for (const int32_t slot : running_) {
    SeqState& st = state(slot);
    const int64_t num_tokens = st.num_computed_tokens + 1;
    require(kv_.allocate_slots(st.request_id, num_tokens, &st.kv_slot_hint),
            "a repeated step ran out of blocks");
    set_held_blocks(st, std::max(st.num_held_blocks, kv_.num_blocks_for(num_tokens)));
  }
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
    for (const int32_t slot : running_) add_scheduled(slot, 1, 0);
  }
  ++stats_.num_steps;
  stats_.num_scheduled_tokens += plan_.num_batched_tokens;
  return std::span<const RequestEvent>(events_);
}

}  // namespace tidal::sched
