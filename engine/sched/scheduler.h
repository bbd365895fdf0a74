// The batch scheduler shared by the simulator and the engine. One step is three calls:
//
//   const StepPlan& plan = scheduler.schedule(now_ns);      // what to compute
//   ... execute the plan (simulate its duration, or run it) ...
//   std::span<const RequestEvent> events = scheduler.update(outputs, end_ns);
//
// (repeat_step(end_ns) does update() and the next schedule() at once for the common decode step
// that only moves every running request one token on.)
//
// There is no prefill or decode phase: each request has num_computed_tokens catching up with
// the tokens it needs (prompt + generated + speculative), under a per-step token budget
// (vLLM v1 style). The batching policy (static | continuous | chunked_prefill | prefill_first),
// the admission policy (max_utilization | guaranteed_no_evict), the preemption mode
// (recompute | swap) and the queue policy (fcfs | priority | fair_share, with its victim rule)
// are chosen by name from SchedulerConfig. KV blocks live in a kv::BlockManager the caller
// owns.
//
// Cost: schedule() and update() are O(scheduled requests) per step plus O(log running) per
// admission, and reuse their buffers (no per-step heap allocation once warm). A queue policy
// other than fcfs adds O(log waiting) (priority) or O(log tenants) (fair_share) per admission
// and preemption, and fair_share O(log tenants) per sampled sequence; their ordered sets
// allocate one node per queued request, not per step.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>

#include "engine/kv/block_manager.h"
#include "engine/sched/config.h"
#include "engine/sched/step_plan.h"
#include "traces/request.h"

namespace tidal::sched {

class SchedulerCore;
class BatchPolicy;

// Cumulative counters since construction.
struct SchedulerStats {
  int64_t num_steps = 0;     // non-empty plans produced
  int64_t num_added = 0;     // requests accepted by add_request
  int64_t num_rejected = 0;  // requests refused by add_request
  int64_t num_finished = 0;  // requests that produced their last token
  int64_t num_removed = 0;   // requests taken out by remove_request
  int64_t num_recompute_preemptions = 0;
  int64_t num_swap_preemptions = 0;
  int64_t num_prefix_hit_tokens = 0;  // over all admissions (including re-admissions)
  int64_t num_scheduled_tokens = 0;   // sum of num_new_tokens over all steps
  int64_t num_spec_tokens = 0;        // speculative tokens scheduled
  int64_t num_accepted_spec_tokens = 0;
  // Waiting requests passed over for a step with no room for their LoRA adapter (a request
  // counts once per step it waited for that reason).
  int64_t num_lora_skips = 0;
};

// A request taken out of the scheduler (e.g. its replica was interrupted), so the caller can
// re-queue it elsewhere.
struct RemovedRequest {
  Request request;                // as given to add_request
  int64_t num_output_tokens = 0;  // tokens it had produced here
  int32_t num_preemptions = 0;
};

class Scheduler {
 public:
  static constexpr int64_t kNoWakeup = std::numeric_limits<int64_t>::max();

  // Throws InputError (json path "scheduler") for an impossible config; see validate().
  // `block_manager` must outlive the scheduler and must not be mutated by others meanwhile.
  Scheduler(const SchedulerConfig& config, kv::BlockManager& block_manager);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Queues a request (in queue_policy order: fcfs by call order, priority by
  // (request.priority, call order), fair_share by tenant) or refuses it with a reason. Prefix-cache
  // hashes come from kv::engine_block_hashes(request, block_size): request ids must be unique over
  // the scheduler's lifetime (a reused id could hit the old request's private cached blocks).
  // `num_transferred_tokens` leading tokens arrive computed from elsewhere (a disaggregated
  // prefill replica's KV, sim/kv_transfer.h): admission allocates their blocks and schedules
  // only the rest; a recompute preemption computes them here after all. At most
  // prompt_tokens (std::logic_error else).
  RejectReason add_request(const Request& request, int64_t now_ns,
                           int64_t num_transferred_tokens = 0);

  // Plans the next step. The plan is owned by the scheduler and stays valid until the next
  // schedule(). An empty plan means nothing can run until a request arrives or next_wakeup_ns().
  const StepPlan& schedule(int64_t now_ns);

  // Applies the executed step (the last plan), which ended at `now_ns` (not before the
  // schedule() call's time; std::logic_error otherwise). `outputs` is either empty — every sampling
  // sequence produced exactly one token, which requires that the plan scheduled no speculative
  // tokens — or aligned with plan.seqs. Returns one event per scheduled sequence, valid until
  // the next update(). Finished requests release their blocks and leave the scheduler.
  std::span<const RequestEvent> update(std::span<const SeqOutput> outputs, int64_t now_ns);

  // update() with one token per sequence followed by schedule(now_ns), at once, for the common
  // step that schedules the same running requests again one token further: no sequence
  // finishes, the free blocks cover every sequence whose next token needs a new one (no
  // preemption), nothing is swapped out, no offload tiers or speculative tokens, and the batching
  // policy could admit no waiting request (docs/scheduler.md, "Repeated decode steps"). Returns
  // update()'s events (valid until the next update() or repeat_step()) and leaves plan() the
  // next step's plan, the same state the two calls leave; nullopt, changing nothing, when the
  // next step is not such a repeat (then call update() and schedule()). Same time rule as
  // update().
  std::optional<std::span<const RequestEvent>> repeat_step(int64_t now_ns);
  // The last plan made (by schedule() or repeat_step()).
  const StepPlan& plan() const;

  // Speculative tokens for this request's next decode step, overriding
  // config.num_speculative_tokens once (0 <= k <= config.num_speculative_tokens). The
  // scheduler still caps k so the request never drafts beyond its output length.
  void set_spec_tokens(int64_t request_id, int32_t num_spec_tokens);

  // Takes a waiting, running or swapped request out (its blocks are freed). Call it between
  // update() and schedule(), never while a plan is being executed. nullopt if unknown.
  std::optional<RemovedRequest> remove_request(int64_t request_id);

  // Earliest time at which schedule() could produce work without new arrivals (static
  // batching's timeout, a request's load from an offload tier completing), or kNoWakeup.
  int64_t next_wakeup_ns() const;

  int64_t num_waiting() const;
  int64_t num_running() const;
  int64_t num_swapped() const;
  bool has_unfinished() const;  // any waiting, running or swapped request
  double kv_usage() const { return block_manager_.usage(); }
  const SchedulerStats& stats() const;
  const SchedulerConfig& config() const;
  const kv::BlockManager& block_manager() const { return block_manager_; }
  // The engine reads block ids for each scheduled request here (see kv::BlockManager).
  std::span<const int32_t> block_table(int64_t request_id) const {
    return block_manager_.block_table(request_id);
  }

 private:
  kv::BlockManager& block_manager_;
  std::unique_ptr<SchedulerCore> core_;
  std::unique_ptr<BatchPolicy> policy_;
  int64_t step_start_ns_ = std::numeric_limits<int64_t>::min();  // time of the last schedule()
};

}  // namespace tidal::sched
