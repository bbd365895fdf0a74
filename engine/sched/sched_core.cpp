// SchedulerCore: building one step (running requests, swap-ins, admissions, preemption).
#include "engine/sched/sched_core.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/kv/block_hash.h"

namespace tidal::sched {

namespace {

void require(bool condition, const char* what) {
  if (!condition) throw std::logic_error(std::string("sched::Scheduler: ") + what);
}

}  // namespace

SchedulerCore::SchedulerCore(const SchedulerConfig& config, kv::BlockManager& block_manager)
    : config_(config),
      kv_(block_manager),
      admission_(make_admission_policy(config.admission)),
      victim_rule_(make_victim_rule(queue_policy_victim_rule(config.queue_policy))),
      swap_preemption_(config.preemption == "swap"),
      prefix_caching_(block_manager.config().enable_prefix_caching),
      waiting_(make_waiting_queue(config)) {}

int32_t SchedulerCore::slot_of(int64_t request_id) const {
  return slot_of_request_.find(static_cast<uint64_t>(request_id));
}

int64_t SchedulerCore::num_watermark_blocks() const {
  return static_cast<int64_t>(config_.watermark * static_cast<double>(kv_.num_gpu_blocks()));
}

int64_t SchedulerCore::oldest_waiting_added_ns() const {
  require(num_waiting() > 0, "oldest_waiting_added_ns with nothing waiting");
  return seqs_[static_cast<size_t>(waiting_->front())].added_ns;
}

const SeqState& SchedulerCore::waiting_at(int64_t index) const {
  require(index >= 0 && index < num_waiting(), "waiting_at outside the waiting queue");
  return seqs_[static_cast<size_t>(waiting_->at(index))];
}

int32_t SchedulerCore::spec_tokens_for(const SeqState& st) const {
  if (st.prefilling()) return 0;
  const int64_t k = st.spec_override >= 0 ? st.spec_override : config_.num_speculative_tokens;
  const int64_t num_remaining = st.num_target_output_tokens - st.num_output_tokens;
  return static_cast<int32_t>(std::clamp<int64_t>(num_remaining - 1, 0, k));
}

int64_t SchedulerCore::tokens_for(int64_t num_needed, bool allow_partial) const {
  if (num_needed <= num_budget_tokens_left_) return num_needed;
  return allow_partial ? num_budget_tokens_left_ : 0;
}

int64_t SchedulerCore::next_load_done_ns() const {
  int64_t next = Scheduler::kNoWakeup;
  if (kv_.tiers() == nullptr) return next;
  for (const int32_t slot : running_) {
    const int64_t until = seqs_[static_cast<size_t>(slot)].loading_until_ns;
    if (until != 0) next = std::min(next, until);
  }
  return next;
}

// ---- step building ---------------------------------------------------------------------------

void SchedulerCore::begin_step(int64_t now_ns) {
  require(!plan_pending_, "schedule() called again before update()");
  ++step_;
  now_ns_ = now_ns;
  if (kv::TierStore* tiers = kv_.tiers()) tiers->set_now(now_ns);
  plan_.clear();
  plan_slots_.clear();
  num_budget_tokens_left_ = config_.max_num_batched_tokens;
  note_arrivals_seen();
  // The running requests' adapters (SGLang's rule, scheduler.py: a new request's adapter must
  // fit beside the running batch's), so that no step, prefill or decode, holds more.
  note_running_adapters();
}

int64_t SchedulerCore::first_unseen_by_next_step() const {
  // Formed ahead, the step knows the arrivals of before its predecessor began; with nothing
  // running, nothing was formed ahead.
  return config_.schedule_ahead && !running_.empty() ? num_arrivals_at_last_step_
                                                     : std::numeric_limits<int64_t>::max();
}

void SchedulerCore::note_arrivals_seen() {
  first_unseen_arrival_seq_ = first_unseen_by_next_step();
  num_arrivals_at_last_step_ = next_arrival_seq_;
}

bool SchedulerCore::head_seen(int64_t first_unseen_arrival_seq) const {
  return seqs_[static_cast<size_t>(waiting_->front())].arrival_seq < first_unseen_arrival_seq;
}

void SchedulerCore::note_running_adapters() {
  step_adapters_.clear();
  if (config_.max_loras_per_batch > 0) {
    for (const int32_t slot : running_) note_adapter(state(slot));
  }
}

bool SchedulerCore::adapter_fits(const SeqState& st) const {
  if (st.adapter_id < 0 || config_.max_loras_per_batch == 0) return true;
  return std::find(step_adapters_.begin(), step_adapters_.end(), st.adapter_id) !=
             step_adapters_.end() ||
         static_cast<int32_t>(step_adapters_.size()) < config_.max_loras_per_batch;
}

void SchedulerCore::note_adapter(const SeqState& st) {
  if (st.adapter_id < 0) return;
  if (std::find(step_adapters_.begin(), step_adapters_.end(), st.adapter_id) ==
      step_adapters_.end()) {
    step_adapters_.push_back(st.adapter_id);
  }
}

void SchedulerCore::schedule_running(RunningPass pass, bool allow_partial) {
  for (size_t i = 0; i < running_.size() && num_budget_tokens_left_ > 0; ++i) {
    const int32_t slot = running_[i];
    SeqState& st = state(slot);
    if (st.scheduled_step == step_ || st.loading_until_ns > now_ns_) continue;
    if ((pass == RunningPass::decodes && st.prefilling()) ||
        (pass == RunningPass::prefills && !st.prefilling())) {
      continue;
    }
    const int64_t num_needed = st.num_tokens() + spec_tokens_for(st) - st.num_computed_tokens;
    const int64_t num_new_tokens = tokens_for(num_needed, allow_partial);
    if (num_new_tokens == 0) continue;
    if (!grow(slot, st.num_computed_tokens + num_new_tokens)) break;
    add_scheduled(slot, num_new_tokens, 0);
  }
}

bool SchedulerCore::swap_in_next(bool allow_partial) {
  // A step that had to preempt has no room to bring anyone back.
  if (swapped_.empty() || !plan_.preempted.empty()) return false;
  if (num_running() >= config_.max_num_seqs) return false;
  const int32_t slot = swapped_.front();
  SeqState& st = state(slot);
  if (!adapter_fits(st)) return false;
  const int64_t num_needed = st.num_tokens() + spec_tokens_for(st) - st.num_computed_tokens;
  const int64_t num_new_tokens = tokens_for(num_needed, allow_partial);
  if (num_new_tokens == 0) return false;
  const auto num_swapped_blocks = static_cast<int64_t>(kv_.block_table(st.request_id).size());
  const int64_t num_step_blocks =
      std::max(num_swapped_blocks, kv_.num_blocks_for(st.num_computed_tokens + num_new_tokens));
  const AdmissionQuery query{kv_.num_free_blocks(), num_watermark_blocks(), num_step_blocks,
                             st.num_lifetime_blocks - num_step_blocks, num_reserved_blocks_};
  if (!admission_->admits(query)) return false;
  require(kv_.swap_in(st.request_id, plan_.swap_in), "swap_in failed after admission");
  require(kv_.allocate_slots(st.request_id, st.num_computed_tokens + num_new_tokens),
          "allocation failed after swap-in admission");
  swapped_.pop_front();
  insert_running(slot, num_step_blocks);
  add_scheduled(slot, num_new_tokens, 0);
  return true;
}

bool SchedulerCore::admit_next(bool allow_partial) {
  if (num_waiting() == 0 || !plan_.preempted.empty()) return false;
  if (num_running() >= config_.max_num_seqs || num_budget_tokens_left_ == 0) return false;
  // A request the step was formed without (schedule_ahead) waits, and so does every one behind.
  if (!head_seen(first_unseen_arrival_seq_)) return false;
  // Requests whose adapter the step has no room for wait for a later step; the next one is
  // tried (they go back in front at finish_step).
  while (!adapter_fits(state(waiting_->front()))) {
    const int32_t skipped = waiting_->front();
    waiting_->erase(skipped, state(skipped));
    lora_skipped_.push_back(skipped);
    ++stats_.num_lora_skips;
    if (num_waiting() == 0 || !head_seen(first_unseen_arrival_seq_)) return false;
  }
  const int32_t slot = waiting_->front();
  SeqState& st = state(slot);
  std::span<const uint64_t> hashes;
  kv::PrefixMatch match;
  int64_t num_hit_tokens = 0;
  int64_t num_computed = 0;
  int64_t num_new_tokens = 0;
  int64_t num_step_blocks = 0;
  int64_t num_loaded_blocks = 0;  // offload-tier hits: admitted loading, scheduled nothing
  // A preemption frees blocks, gives back its scheduled tokens and may turn prefix hits into
  // free cached blocks, so each try measures again.
  while (true) {
    match = match_waiting_prefix(st, hashes);
    num_loaded_blocks = tier_match_.num_hit_blocks();
    num_hit_tokens = (match.num_hit_blocks + num_loaded_blocks) * kv_.block_size();
    if (num_loaded_blocks > 0 && num_hit_tokens <= st.num_transferred_tokens) {
      num_loaded_blocks = 0;  // its transferred KV already holds them
      num_hit_tokens = match.num_hit_blocks * kv_.block_size();
    }
    num_computed = num_admitted_computed(st, num_hit_tokens);
    num_new_tokens =
        num_loaded_blocks > 0 ? 0 : tokens_for(st.num_tokens() - num_computed, allow_partial);
    if (num_loaded_blocks == 0 && num_new_tokens == 0) return false;
    num_step_blocks = kv_.num_blocks_for(num_computed + num_new_tokens);
    const AdmissionQuery query{kv_.num_free_blocks(), num_watermark_blocks(),
                               num_step_blocks - match.num_hit_blocks + match.num_hit_free_blocks,
                               st.num_lifetime_blocks - num_step_blocks, num_reserved_blocks_};
    if (admission_->admits(query)) break;
    if (!admission_->allows_preemption() || running_.empty() ||
        state(running_.back()).preemption_rank <= st.preemption_rank) {
      return false;
    }
    preempt(running_.back());
    require(waiting_->front() == slot, "a preempted request went before the one it made room for");
  }
  take_prefix(st, hashes, match.num_hit_blocks);
  st.num_computed_tokens = num_computed;
  require(kv_.allocate_slots(st.request_id, num_computed + num_new_tokens),
          "allocation failed after admission");
  waiting_->pop_front(st);
  insert_running(slot, num_step_blocks);
  if (num_loaded_blocks > 0) {
    const int64_t num_loaded_tokens = num_loaded_blocks * kv_.block_size();
    const int64_t load_ns =
        kv_.tiers()->load(hashes.subspan(static_cast<size_t>(match.num_hit_blocks)), tier_match_);
    st.loading_until_ns = now_ns_ + std::max<int64_t>(load_ns, 1);  // 0 means not loading
    st.awaiting_first_step = true;
    stats_.num_prefix_hit_tokens += num_loaded_tokens;
    if (!st.ever_scheduled) st.num_first_prefix_hit_tokens += num_loaded_tokens;
    return true;
  }
  add_scheduled(slot, num_new_tokens, num_hit_tokens);
  return true;
}

void SchedulerCore::enroll_next() {
  require(num_waiting() > 0, "enroll_next with nothing waiting");
  require(num_running() < config_.max_num_seqs, "enroll_next beyond max_num_seqs");
  const int32_t slot = waiting_->front();
  SeqState& st = state(slot);
  std::span<const uint64_t> hashes;
  const kv::PrefixMatch match = match_waiting_prefix(st, hashes);
  take_prefix(st, hashes, match.num_hit_blocks);
  st.num_computed_tokens = num_admitted_computed(st, st.num_computed_tokens);
  require(kv_.allocate_slots(st.request_id, st.num_computed_tokens),
          "allocation failed for an enrolled request");
  waiting_->pop_front(st);
  insert_running(slot, kv_.num_blocks_for(st.num_computed_tokens));
  st.awaiting_first_step = true;
}

kv::PrefixMatch SchedulerCore::match_waiting_prefix(SeqState& st,
                                                    std::span<const uint64_t>& hashes) {
  tier_match_.tier_of_block.clear();
  if (!prefix_caching_) return {};
  // At least the last known token is computed, so hits stop before it.
  const int64_t num_hashable_blocks = (st.num_tokens() - 1) / kv_.block_size();
  kv::extend_private_block_hashes(st.request_id, 0, num_hashable_blocks, st.block_hashes);
  hashes =
      std::span<const uint64_t>(st.block_hashes).first(static_cast<size_t>(num_hashable_blocks));
  const kv::PrefixMatch match = kv_.match_prefix(hashes, st.previous_blocks);
  if (const kv::TierStore* tiers = kv_.tiers()) {
    tiers->match(hashes.subspan(static_cast<size_t>(match.num_hit_blocks)), tier_match_);
  }
  return match;
}

void SchedulerCore::take_prefix(SeqState& st, std::span<const uint64_t> hashes,
                                int64_t num_hit_blocks) {
  if (prefix_caching_) {
    require(kv_.acquire_prefix(st.request_id, hashes, st.previous_blocks) == num_hit_blocks,
            "prefix hit changed between match and acquire");
    st.previous_blocks.clear();
  }
  const int64_t num_hit_tokens = num_hit_blocks * kv_.block_size();
  st.num_computed_tokens = num_hit_tokens;
  if (!st.ever_scheduled) st.num_first_prefix_hit_tokens = num_hit_tokens;
  stats_.num_prefix_hit_tokens += num_hit_tokens;
}

const StepPlan& SchedulerCore::finish_step() {
  // Back in front, in their order.
  for (auto it = lora_skipped_.rbegin(); it != lora_skipped_.rend(); ++it) {
    waiting_->push_preempted(*it, state(*it));
  }
  lora_skipped_.clear();
  plan_pending_ = !plan_.seqs.empty();
  if (!plan_.empty()) ++stats_.num_steps;
  stats_.num_scheduled_tokens += plan_.num_batched_tokens;
  return plan_;
}

// ---- KV growth and preemption ----------------------------------------------------------------

bool SchedulerCore::grow(int32_t slot, int64_t num_tokens) {
  SeqState& st = state(slot);
  while (!kv_.allocate_slots(st.request_id, num_tokens, &st.kv_slot_hint)) {
    require(admission_->allows_preemption(), "out of KV blocks under guaranteed_no_evict");
    const int32_t victim = running_.back();
    preempt(victim);
    if (victim == slot) return false;
  }
  set_held_blocks(st, std::max(st.num_held_blocks, kv_.num_blocks_for(num_tokens)));
  return true;
}

void SchedulerCore::preempt(int32_t slot) {
  require(!running_.empty() && running_.back() == slot, "preempting other than the last");
  SeqState& st = state(slot);
  if (st.scheduled_step == step_) unschedule(slot);
  running_.pop_back();
  num_reserved_blocks_ -= st.num_lifetime_blocks - st.num_held_blocks;
  st.num_held_blocks = 0;
  st.loading_until_ns = 0;  // a load in progress is lost with its blocks
  ++st.num_preemptions;
  const bool swapped = swap_preemption_ && kv_.swap_out(st.request_id, plan_.swap_out);
  if (swapped) {
    st.status = SeqStatus::swapped;
    insert_in_running_order(swapped_, slot);
    ++stats_.num_swap_preemptions;
  } else {
    if (prefix_caching_) {
      const auto table = kv_.block_table(st.request_id);
      st.previous_blocks.assign(table.begin(), table.end());
    }
    kv_.free(st.request_id);
    st.num_computed_tokens = 0;
    st.num_transferred_tokens = 0;  // its transferred KV is gone: it recomputes here
    st.status = SeqStatus::waiting;
    waiting_->push_preempted(slot, st);
    ++stats_.num_recompute_preemptions;
  }
  plan_.preempted.push_back({st.request_id, swapped});
}

void SchedulerCore::unschedule(int32_t slot) {
  for (size_t i = 0; i < plan_slots_.size(); ++i) {
    if (plan_slots_[i] != slot) continue;
    num_budget_tokens_left_ += plan_.seqs[i].num_new_tokens;
    plan_.num_batched_tokens -= plan_.seqs[i].num_new_tokens;
    plan_.seqs.erase(plan_.seqs.begin() + static_cast<std::ptrdiff_t>(i));
    plan_slots_.erase(plan_slots_.begin() + static_cast<std::ptrdiff_t>(i));
    state(slot).scheduled_step = -1;
    return;
  }
}

void SchedulerCore::add_scheduled(int32_t slot, int64_t num_new_tokens,
                                  int64_t num_prefix_hit_tokens) {
  SeqState& st = state(slot);
  const int64_t num_scheduled_end = st.num_computed_tokens + num_new_tokens;
  ScheduledSeq seq;
  seq.request_id = st.request_id;
  seq.num_new_tokens = num_new_tokens;
  seq.num_context_tokens = st.num_computed_tokens;
  seq.num_spec_tokens =
      static_cast<int32_t>(std::max<int64_t>(0, num_scheduled_end - st.num_tokens()));
  seq.num_prefix_hit_tokens = num_prefix_hit_tokens;
  seq.samples = num_scheduled_end >= st.num_tokens();
  seq.first_scheduled = !st.ever_scheduled;
  if (!st.prefilling()) st.spec_override = -1;  // a per-step override is used once
  st.ever_scheduled = true;
  st.awaiting_first_step = false;
  st.loading_until_ns = 0;
  st.scheduled_step = step_;
  note_adapter(st);
  plan_.seqs.push_back(seq);
  plan_slots_.push_back(slot);
  plan_.num_batched_tokens += num_new_tokens;
  num_budget_tokens_left_ -= num_new_tokens;
  stats_.num_spec_tokens += seq.num_spec_tokens;
}

void SchedulerCore::insert_running(int32_t slot, int64_t num_held_blocks) {
  SeqState& st = state(slot);
  st.status = SeqStatus::running;
  insert_in_running_order(running_, slot);
  st.num_held_blocks = 0;
  st.num_cached_blocks = 0;
  num_reserved_blocks_ += st.num_lifetime_blocks;
  set_held_blocks(st, num_held_blocks);
}

template <typename Queue>
void SchedulerCore::insert_in_running_order(Queue& queue, int32_t slot) {
  const SeqState& st = state(slot);
  const auto pos = std::upper_bound(
      queue.begin(), queue.end(), slot,
      [this, &st](int32_t, int32_t s) { return runs_before(st, seqs_[static_cast<size_t>(s)]); });
  queue.insert(pos, slot);
}

void SchedulerCore::set_held_blocks(SeqState& st, int64_t num_held_blocks) {
  num_reserved_blocks_ -= num_held_blocks - st.num_held_blocks;
  st.num_held_blocks = num_held_blocks;
}

}  // namespace tidal::sched
