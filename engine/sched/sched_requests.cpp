// SchedulerCore: adding, updating and removing requests.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/kv/block_hash.h"
#include "engine/sched/sched_core.h"

namespace tidal::sched {

namespace {

void require(bool condition, const char* what) {
  if (!condition) throw std::logic_error(std::string("sched::Scheduler: ") + what);
}

}  // namespace

RejectReason SchedulerCore::add(const Request& request, int64_t now_ns,
                                int64_t num_transferred_tokens) {
  require(num_transferred_tokens >= 0 && num_transferred_tokens <= request.prompt_tokens,
          "add_request with transferred tokens outside [0, prompt_tokens]");
  RejectReason reason = RejectReason::none;
  if (slot_of(request.id) != kv::FlatMap::kAbsent) {
    reason = RejectReason::duplicate_id;
  } else if (request.prompt_tokens < 1) {
    reason = RejectReason::empty_prompt;
  } else if (request.output_tokens < 1) {
    reason = RejectReason::no_output_tokens;
  } else if (request.prompt_tokens + request.output_tokens > config_.max_model_len) {
    reason = RejectReason::exceeds_max_model_len;
  } else if (kv_.num_blocks_for(request.prompt_tokens + request.output_tokens - 1) >
             kv_.num_gpu_blocks() - num_watermark_blocks()) {
    reason = RejectReason::exceeds_kv_capacity;
  }
  if (reason != RejectReason::none) {
    ++stats_.num_rejected;
    return reason;
  }
  int32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<int32_t>(seqs_.size());
    seqs_.emplace_back();
  }
  SeqState& st = state(slot);
  st.request = request;
  st.request_id = request.id;
  st.num_prompt_tokens = request.prompt_tokens;
  st.num_target_output_tokens = request.output_tokens;
  st.arrival_seq = next_arrival_seq_++;
  st.added_ns = now_ns;
  st.num_output_tokens = 0;
  st.num_computed_tokens = 0;
  st.num_lifetime_blocks = kv_.num_blocks_for(request.prompt_tokens + request.output_tokens - 1);
  st.num_held_blocks = 0;
  st.num_cached_blocks = 0;
  st.num_first_prefix_hit_tokens = 0;
  st.num_transferred_tokens = num_transferred_tokens;
  st.loading_until_ns = 0;
  st.scheduled_step = -1;
  st.spec_override = -1;
  st.adapter_id = -1;
  if (config_.max_loras_per_batch > 0 && !request.adapter.empty()) {
    st.adapter_id =
        adapter_ids_.try_emplace(request.adapter, static_cast<int32_t>(adapter_ids_.size()))
            .first->second;
  }
  st.num_preemptions = 0;
  st.preemption_rank = victim_rule_->rank(request);
  st.status = SeqStatus::waiting;
  st.ever_scheduled = false;
  st.awaiting_first_step = false;
  st.block_hashes.clear();
  if (prefix_caching_) st.block_hashes = kv::engine_block_hashes(request, kv_.block_size());
  slot_of_request_.insert(static_cast<uint64_t>(request.id), slot);
  waiting_->push(slot, st);
  ++stats_.num_added;
  return RejectReason::none;
}

void SchedulerCore::set_spec_tokens(int64_t request_id, int32_t num_spec_tokens) {
  const int32_t slot = slot_of(request_id);
  require(slot != kv::FlatMap::kAbsent, "set_spec_tokens for an unknown request");
  require(num_spec_tokens >= 0 && num_spec_tokens <= config_.num_speculative_tokens,
          "set_spec_tokens outside [0, num_speculative_tokens]");
  state(slot).spec_override = num_spec_tokens;
}

const RequestEvent& SchedulerCore::append_step_event(int32_t slot, const ScheduledSeq& seq,
                                                     int32_t num_produced) {
  SeqState& st = state(slot);
  RequestEvent& event = events_.emplace_back();
  event.request_id = seq.request_id;
  event.first_scheduled = seq.first_scheduled;
  if (num_produced > 0) {
    event.first_token = st.num_output_tokens == 0;
    st.num_output_tokens += num_produced;
    waiting_->on_output_tokens(slot, num_produced);
    event.num_new_output_tokens = num_produced;
  }
  // Newly filled blocks go to the prefix cache.
  const int64_t num_full_blocks = st.num_computed_tokens / kv_.block_size();
  if (prefix_caching_ && num_full_blocks > st.num_cached_blocks) {
    kv::extend_private_block_hashes(st.request_id, 0, num_full_blocks, st.block_hashes);
    kv_.cache_blocks(st.request_id, st.block_hashes, num_full_blocks);
    st.num_cached_blocks = num_full_blocks;
  }
  event.finished = st.num_output_tokens >= st.num_target_output_tokens;
  event.num_preemptions = st.num_preemptions;
  event.num_prefix_hit_tokens = st.num_first_prefix_hit_tokens;
  return event;
}

std::span<const RequestEvent> SchedulerCore::update(std::span<const SeqOutput> outputs) {
  events_.clear();
  if (!plan_pending_) return events_;
  plan_pending_ = false;
  require(outputs.empty() || outputs.size() == plan_.seqs.size(),
          "update() outputs not aligned with the plan");
  bool any_finished = false;
  for (size_t i = 0; i < plan_.seqs.size(); ++i) {
    const ScheduledSeq& seq = plan_.seqs[i];
    SeqState& st = state(plan_slots_[i]);
    st.num_computed_tokens += seq.num_new_tokens;
    int32_t num_produced = 0;
    if (seq.samples) {
      require(!outputs.empty() || seq.num_spec_tokens == 0,
              "update() without outputs for a plan with speculative tokens");
      num_produced = outputs.empty() ? 1 : outputs[i].num_accepted_tokens;
      require(num_produced >= 1 && num_produced <= seq.num_spec_tokens + 1,
              "num_accepted_tokens outside [1, num_spec_tokens + 1] for a sampling sequence");
      const int32_t num_rejected = seq.num_spec_tokens - (num_produced - 1);
      if (num_rejected > 0) {
        st.num_computed_tokens -= num_rejected;
        kv_.truncate(seq.request_id, st.num_computed_tokens);
        set_held_blocks(st, kv_.num_blocks_for(st.num_computed_tokens));
      }
      stats_.num_accepted_spec_tokens += num_produced - 1;
    } else {
      require(outputs.empty() || outputs[i].num_accepted_tokens == 0,
              "tokens reported for a sequence that does not sample");
    }
    const RequestEvent& event = append_step_event(plan_slots_[i], seq, num_produced);
    if (event.finished) {
      st.status = SeqStatus::finished;
      num_reserved_blocks_ -= st.num_lifetime_blocks - st.num_held_blocks;
      kv_.free(seq.request_id);
      any_finished = true;
      ++stats_.num_finished;
    }
  }
  if (any_finished) {
    std::erase_if(running_, [this](int32_t slot) {
      if (state(slot).status != SeqStatus::finished) return false;
      release(slot);
      return true;
    });
  }
  return events_;
}

std::optional<RemovedRequest> SchedulerCore::remove(int64_t request_id) {
  require(!plan_pending_, "remove_request while a plan awaits update()");
  const int32_t slot = slot_of(request_id);
  if (slot == kv::FlatMap::kAbsent) return std::nullopt;
  SeqState& st = state(slot);
  switch (st.status) {
    case SeqStatus::waiting:
      waiting_->erase(slot, st);
      break;
    case SeqStatus::running:
      running_.erase(std::find(running_.begin(), running_.end(), slot));
      num_reserved_blocks_ -= st.num_lifetime_blocks - st.num_held_blocks;
      break;
    case SeqStatus::swapped:
      swapped_.erase(std::find(swapped_.begin(), swapped_.end(), slot));
      break;
    case SeqStatus::finished:
      require(false, "remove of a finished request");
  }
  if (kv_.has_request(request_id)) kv_.free(request_id);
  release(slot);
  RemovedRequest removed{std::move(st.request), st.num_output_tokens, st.num_preemptions};
  ++stats_.num_removed;
  return removed;
}

void SchedulerCore::release(int32_t slot) {
  SeqState& st = state(slot);
  slot_of_request_.erase(static_cast<uint64_t>(st.request_id));
  st.block_hashes.clear();
  st.previous_blocks.clear();
  free_slots_.push_back(slot);
}

}  // namespace tidal::sched
