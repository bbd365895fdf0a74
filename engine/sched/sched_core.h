// The scheduler's mechanism: request states, the waiting / running / swapped queues, the token
// budget, KV growth with preemption, and update(). Batching policies (batch_policy.h) drive it
// through the step-building calls; they never touch the block manager themselves.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/kv/block_manager.h"
#include "engine/kv/flat_map.h"
#include "engine/kv/tier_store.h"
#include "engine/sched/admission.h"
#include "engine/sched/config.h"
#include "engine/sched/queue_policy.h"
#include "engine/sched/scheduler.h"
#include "engine/sched/step_plan.h"
#include "engine/sched/victim_rule.h"
#include "traces/request.h"

namespace tidal::sched {

enum class SeqStatus : uint8_t { waiting, running, swapped, finished };

// Which running requests a schedule_running() pass visits.
enum class RunningPass : uint8_t {
  all,       // every running request, in running order (see SchedulerCore::running_)
  decodes,   // only those with all known tokens but the last computed (!prefilling())
  prefills,  // only those still catching up on several tokens, or enrolled and not yet run
};

// One request's scheduling state. Hot fields first (one or two cache lines per step); the
// request record itself sits at the end and is read only on add and remove.
struct SeqState {
  int64_t request_id = 0;
  int64_t num_prompt_tokens = 0;
  int64_t num_target_output_tokens = 0;     // the request's output_tokens
  int64_t num_output_tokens = 0;            // produced so far
  int64_t num_computed_tokens = 0;          // tokens whose KV is in the cache
  int64_t num_lifetime_blocks = 0;          // blocks for prompt + output - 1 tokens
  int64_t num_held_blocks = 0;              // its GPU table size while running
  int64_t num_cached_blocks = 0;            // leading full blocks offered to the prefix cache
  int64_t scheduled_step = -1;              // last step that scheduled it
  int64_t arrival_seq = 0;                  // add order: FCFS priority, lower first
  int64_t num_first_prefix_hit_tokens = 0;  // prefix hits at its first admission
  int64_t num_transferred_tokens = 0;       // leading tokens whose KV arrives computed
  int64_t loading_until_ns = 0;  // its offload-tier hits load until then: not scheduled before
  int32_t spec_override = -1;    // k for its next decode step, -1: config default
  int32_t adapter_id = -1;       // its LoRA adapter's id in SchedulerCore, -1: none
  int32_t num_preemptions = 0;
  int32_t preemption_rank = 0;  // the victim rule's rank: larger is preempted first
  int32_t kv_slot_hint = -1;    // where the KV manager last kept its table (allocate_slots)
  SeqStatus status = SeqStatus::waiting;
  bool ever_scheduled = false;
  bool awaiting_first_step = false;    // enrolled (enroll_next) and not scheduled since
  int64_t added_ns = 0;                // when add_request saw it
  std::vector<uint64_t> block_hashes;  // [>= full blocks computed] chained prefix hashes
  // Its block table when last preempted by recompute: its private blocks can only be found
  // again through it (kv::BlockManager::match_prefix).
  std::vector<int32_t> previous_blocks;
  Request request;  // as added

  int64_t num_tokens() const { return num_prompt_tokens + num_output_tokens; }
  bool decoding() const { return num_computed_tokens + 1 >= num_tokens(); }
  // Still has its prefill to run: several tokens to catch up on, or enrolled and not yet
  // scheduled (a static batch's member whose prompt is one token, or cached but for one).
  bool prefilling() const { return awaiting_first_step || !decoding(); }
};

class SchedulerCore {
 public:
  SchedulerCore(const SchedulerConfig& config, kv::BlockManager& block_manager);

  // ---- requests ----------------------------------------------------------------------------
  RejectReason add(const Request& request, int64_t now_ns, int64_t num_transferred_tokens);
  std::optional<RemovedRequest> remove(int64_t request_id);
  void set_spec_tokens(int64_t request_id, int32_t num_spec_tokens);

  // ---- step building (called by batching policies between begin_step and finish_step) -------
  void begin_step(int64_t now_ns);
  // Schedules the running requests the pass selects, in running order: each gets all the tokens
  // it needs, or (allow_partial) what is left of the budget. Growing KV may preempt the last
  // running request (it may be the one growing; then the pass stops).
  void schedule_running(RunningPass pass, bool allow_partial);
  // Brings the first swapped request back and schedules it; false when it does not fit
  // (sequence limit, budget, or admission), which ends swap-ins for this step.
  bool swap_in_next(bool allow_partial);
  // Admits the head of the waiting queue (queue_policy order) and schedules it; false when it
  // does not fit. When its prefix continues in the block manager's offload tiers
  // (kv::TierStore) past the GPU hits, it is admitted holding the blocks of every hit but
  // scheduled nothing: it loads them until now + the load time and joins the running
  // requests' passes from then on. When its blocks do not fit and preemption is allowed, it first
  // preempts running requests of a larger preemption rank than its own, last first (none under the
  // newest rule, whose ranks are all 0).
  bool admit_next(bool allow_partial);
  // Moves the head of the waiting queue into running with its prefix-cache hits but schedules
  // none of its tokens (a static batch's member: schedule_running prefills it later). No
  // admission check: the caller has checked that its blocks fit. GPU hits only: static batching
  // takes no offload tiers. Requires num_waiting() > 0
  // and num_running() < max_num_seqs.
  void enroll_next();
  const StepPlan& finish_step();

  // ---- update ------------------------------------------------------------------------------
  std::span<const RequestEvent> update(std::span<const SeqOutput> outputs);

  // ---- repeated decode steps (sched_repeat.cpp) ----------------------------------------------
  // update() with one token per sequence and the next begin_step .. finish_step at once, when
  // that next step schedules the same running requests one token further: see
  // Scheduler::repeat_step. `policy_admits` says whether the batching policy could admit a
  // waiting request into the next step. nullopt, changing nothing, when the step is no repeat.
  std::optional<std::span<const RequestEvent>> repeat_step(int64_t now_ns, bool policy_admits);
  const StepPlan& plan() const { return plan_; }

  // ---- queries -----------------------------------------------------------------------------
  int64_t num_waiting() const { return waiting_->size(); }
  int64_t num_running() const { return static_cast<int64_t>(running_.size()); }
  int64_t num_swapped() const { return static_cast<int64_t>(swapped_.size()); }
  // Sequences in the step being built (between begin_step and finish_step).
  int64_t num_scheduled() const { return static_cast<int64_t>(plan_.seqs.size()); }
  int64_t oldest_waiting_added_ns() const;  // the head's (oldest under fcfs); num_waiting() > 0
  // The request at `index` of the waiting queue; requires index < num_waiting() and fcfs.
  const SeqState& waiting_at(int64_t index) const;
  // GPU blocks admissions may still take: free blocks less the watermark.
  int64_t num_admissible_blocks() const { return kv_.num_free_blocks() - num_watermark_blocks(); }
  int64_t num_blocks_for(int64_t num_tokens) const { return kv_.num_blocks_for(num_tokens); }
  const SchedulerConfig& config() const { return config_; }
  const SchedulerStats& stats() const { return stats_; }
  // When the first running request still loading from an offload tier is done (after the
  // last begin_step's time), or Scheduler::kNoWakeup.
  int64_t next_load_done_ns() const;

 private:
  SeqState& state(int32_t slot) { return seqs_[static_cast<size_t>(slot)]; }
  int32_t slot_of(int64_t request_id) const;  // FlatMap::kAbsent when unknown
  int32_t spec_tokens_for(const SeqState& st) const;
  // Tokens to schedule for a need under the budget: the need, a partial share, or 0.
  int64_t tokens_for(int64_t num_needed, bool allow_partial) const;
  // The head of the waiting queue's prefix-cache hits (none without prefix caching); `hashes`
  // gets its hashable blocks' hashes, tier_match_ the offload-tier hits that follow the GPU's.
  // take_prefix then acquires the hit blocks.
  kv::PrefixMatch match_waiting_prefix(SeqState& st, std::span<const uint64_t>& hashes);
  void take_prefix(SeqState& st, std::span<const uint64_t> hashes, int64_t num_hit_blocks);
  // Tokens an admission finds computed: its prefix hits or its transferred tokens.
  static int64_t num_admitted_computed(const SeqState& st, int64_t num_hit_tokens) {
    return std::max(num_hit_tokens, st.num_transferred_tokens);
  }
  // Whether `a` comes before `b` in the running and swapped order: (preemption_rank, arrival).
  static bool runs_before(const SeqState& a, const SeqState& b) {
    return a.preemption_rank != b.preemption_rank ? a.preemption_rank < b.preemption_rank
                                                  : a.arrival_seq < b.arrival_seq;
  }
  // Inserts `slot` into `queue` (running_ or swapped_) in running order.
  template <typename Queue>
  void insert_in_running_order(Queue& queue, int32_t slot);
  bool grow(int32_t slot, int64_t num_tokens);  // false: `slot` itself was preempted
  void preempt(int32_t slot);                   // slot must be running_.back()
  void unschedule(int32_t slot);
  void add_scheduled(int32_t slot, int64_t num_new_tokens, int64_t num_prefix_hit_tokens);
  // Moves a just-admitted or swapped-in request into running_, holding `num_held_blocks`.
  void insert_running(int32_t slot, int64_t num_held_blocks);
  // Records the request's GPU table size (the scheduler mirrors it to avoid lookups).
  void set_held_blocks(SeqState& st, int64_t num_held_blocks);
  void release(int32_t slot);
  int64_t num_watermark_blocks() const;
  // Whether a step holding step_adapters_ may also take `st` (always without a LoRA limit).
  bool adapter_fits(const SeqState& st) const;
  void note_adapter(const SeqState& st);  // `st` was scheduled: its adapter joins the step
  void note_running_adapters();           // the running requests' adapters join the step
  // The first arrival_seq the next step to be formed cannot see (schedule_ahead; else none).
  int64_t first_unseen_by_next_step() const;
  // Sets first_unseen_arrival_seq_ for the step being formed (begin_step, repeat_step).
  void note_arrivals_seen();
  // Whether the waiting queue's head was seen when the step being formed was (schedule_ahead);
  // requires num_waiting() > 0.
  bool head_seen(int64_t first_unseen_arrival_seq) const;
  // Whether the pending plan's next step is a repeat of it (repeat_step).
  bool repeats_pending_plan(bool policy_admits) const;
  // Appends to events_ the update() event of a scheduled sequence whose tokens the step
  // computed and which produced `num_produced` output tokens (0: it does not sample): counts
  // them and offers its newly filled blocks to the prefix cache; finishing is the caller's. The
  // event is built where it stays, not built aside and copied in.
  const RequestEvent& append_step_event(int32_t slot, const ScheduledSeq& seq,
                                        int32_t num_produced);

  SchedulerConfig config_;
  kv::BlockManager& kv_;
  std::unique_ptr<AdmissionPolicy> admission_;
  std::unique_ptr<VictimRule> victim_rule_;
  bool swap_preemption_ = false;
  bool prefix_caching_ = false;

  std::vector<SeqState> seqs_;             // per tracked request; slots reused after release
  std::vector<int32_t> free_slots_;        // indices into seqs_
  kv::FlatMap slot_of_request_;            // request id -> index into seqs_
  std::unique_ptr<WaitingQueue> waiting_;  // queue_policy order (queue_policy.h)
  // Running order: sorted by (preemption_rank, arrival_seq); the back is preempted first.
  std::vector<int32_t> running_;
  std::deque<int32_t> swapped_;  // in running order: the front comes back first
  int64_t next_arrival_seq_ = 0;
  // schedule_ahead: requests added from this arrival_seq on are not seen by the step being
  // formed (formed, in the engine, while the step before it ran); without it, none is unseen.
  int64_t first_unseen_arrival_seq_ = std::numeric_limits<int64_t>::max();
  int64_t num_arrivals_at_last_step_ = 0;  // next_arrival_seq_ when the last step was formed
  int64_t num_reserved_blocks_ = 0;        // sum over running of lifetime - held blocks

  int64_t step_ = 0;
  int64_t now_ns_ = 0;  // the step's time (begin_step)
  int64_t num_budget_tokens_left_ = 0;
  kv::TierMatch tier_match_;   // of the last match_waiting_prefix
  bool plan_pending_ = false;  // a plan with sequences awaits update()
  // LoRA adapters (config_.max_loras_per_batch > 0): ids by name, the distinct ids the step
  // being built holds, and the waiting requests passed over for it (back in front at
  // finish_step).
  std::unordered_map<std::string, int32_t> adapter_ids_;
  std::vector<int32_t> step_adapters_;  // [<= max_loras_per_batch]
  std::vector<int32_t> lora_skipped_;   // [skipped this step] slots, in queue order
  StepPlan plan_;
  std::vector<int32_t> plan_slots_;   // [plan_.seqs.size()] slot of each scheduled sequence
  std::vector<RequestEvent> events_;  // [plan_.seqs.size()] after update()
  SchedulerStats stats_;
};

}  // namespace tidal::sched
