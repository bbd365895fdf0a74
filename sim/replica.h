// A replica: one model instance on `tp` GPUs running the shared batch scheduler over its own
// KV block pool, with the pool's step-time model standing in for execution.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "engine/kv/block_manager.h"
#include "engine/kv/tier_store.h"
#include "engine/sched/scheduler.h"
#include "perf/step_time_model.h"
#include "perf/step_work.h"
#include "sim/decode_run.h"
#include "sim/fleet/hol_blocking.h"
#include "sim/lora_cache.h"
#include "sim/replica_state.h"
#include "sim/scenario.h"
#include "sim/spec_acceptance.h"
#include "sim/spec_proposal.h"

namespace tidal::sim {

// A replica's steps summed, for the load figures of docs/run-output.md ("Load"). Batch and
// KV use are weighted by step time: what ran for how long.
struct StepLoad {
  std::vector<int64_t> busy_ns_by_batch;  // [largest batch + 1] step time computing b sequences
  double kv_share_ns = 0.0;    // sum over steps of (used / all GPU KV blocks once scheduled) x ns
  double peak_kv_share = 0.0;  // the largest of those shares
  int64_t busy_ns = 0;         // sum of step times
  // Per GPU, by the roofline's counts (perf/step_work.h), over the steps it could count (all of
  // them, or none when the pool's model or GPU has no figures to count by): FLOPs and HBM
  // bytes, and the GPU's peak FLOP/s and bytes/s times each step's predicted seconds.
  double flops = 0.0;
  double bytes = 0.0;
  double peak_flops_seconds = 0.0;
  double peak_bytes_seconds = 0.0;
  // Per GPU, the power model's busy time: the sum over steps of utilisation (max of the step's
  // MFU and MBU, sim/fleet/energy_model.h) x step seconds; a step it cannot count by counts at
  // utilisation 1 (full power).
  double full_power_s = 0.0;
};

class Replica {
 public:
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

  // `long_prefill_tokens` > 0 turns on head-of-line accounting (fleet::attribute_step_stretch);
  // `seed` drives the speculative acceptance model of the pool's `speculative` spec;
  // `remote_tier` is the fleet's shared remote KV tier, for a pool whose kv_tiers name one;
  // `slo_classes` are the scenario's (Scenario::slo_classes), which the pool's
  // speculative.acceptance_by_class names; `work_counter` prices its steps' roofline work (its
  // pool's, shared by the pool's replicas of one run; null: the replica makes its own, or has
  // none when make_work_counter gives none); `step_by_step` turns off repeated decode steps
  // (apply_step), for validating them.
  Replica(int32_t index, int32_t pool, const PoolSpec& spec, int64_t long_prefill_tokens = 0,
          uint64_t seed = 0, std::shared_ptr<kv::KvTier> remote_tier = nullptr,
          std::span<const SloClass> slo_classes = {},
          std::shared_ptr<const perf::StepWorkCounter> work_counter = nullptr,
          bool step_by_step = false);
  // The roofline work counter of a pool's steps; null when its model or GPU has no figures to
  // count by (e.g. a profile-only pool). Not thread-safe (it remembers work between calls).
  static std::shared_ptr<const perf::StepWorkCounter> make_work_counter(const PoolSpec& spec);
  Replica(const Replica&) = delete;
  Replica& operator=(const Replica&) = delete;

  int32_t index() const { return index_; }
  int32_t pool() const { return pool_; }
  // The scheduler and KV pool; not after release().
  sched::Scheduler& scheduler() { return *scheduler_; }
  const sched::Scheduler& scheduler() const { return *scheduler_; }
  const kv::BlockManager& block_manager() const { return *block_manager_; }

  // Frees the scheduler and KV pool of a stopped replica (a long autoscaled run creates many
  // replicas); their final counters stay readable below.
  void release();
  bool released() const { return scheduler_ == nullptr; }
  sched::SchedulerStats scheduler_stats() const;
  kv::BlockManagerStats block_manager_stats() const;
  // What its KV offload tiers moved (no tiers: empty), kept by release().
  kv::TierStoreStats tier_stats() const;
  int64_t num_used_blocks() const { return released() ? 0 : block_manager_->num_used_blocks(); }
  int64_t num_gpu_blocks() const { return num_gpu_blocks_; }

  // Asks the scheduler for the next step at `now_ns` and the step-time model for its length
  // (compute plus KV swap copies). Returns the duration in ns (>= 1), or -1 when the plan is
  // empty. The plan stays readable through plan() until the step is applied.
  // `requests` are the run's requests by id (read for their LoRA adapters when the pool has
  // `lora`). After an apply_step() that repeated the step, the scheduler has planned it already;
  // nothing may be added to or removed from the scheduler in between (std::logic_error).
  int64_t plan_step(int64_t now_ns, std::span<const Request> requests = {});
  const sched::StepPlan& plan() const { return *plan_; }
  // Whether the planned step repeats the one before (Scheduler::repeat_step: the same
  // sequences, each one token further).
  bool plan_repeats() const { return plan_repeats_; }
  // Applies the planned step, which ended at `now_ns`: Scheduler::update(outputs, now_ns), or,
  // when the next step repeats this one (Scheduler::repeat_step; not with step_by_step or
  // speculative outputs), the update and the next step's plan at once. Returns the events.
  std::span<const sched::RequestEvent> apply_step(std::span<const sched::SeqOutput> outputs,
                                                  int64_t now_ns);
  // What the planned step produced per sequence, for Scheduler::update: empty without
  // speculative decoding (one token per sampling sequence), else accepted lengths drawn from
  // the acceptance model, aligned with plan().seqs. Call once per step. `request_class` maps a
  // request id to its index into the scenario's slo_classes (RequestTable::slo_class); read only
  // when the pool's speculative spec has acceptance_by_class.
  std::span<const sched::SeqOutput> step_outputs(std::span<const int32_t> request_class = {});
  // Drops what step_outputs keeps of a request that left this replica (its decode step count).
  void forget(int64_t request_id) { decode_steps_.erase(request_id); }
  // Head-of-line stretch of the planned step per sequence, aligned with plan().seqs (empty
  // when the step holds no long prefill beside other sequences).
  std::span<const double> hol_delay_s() const { return hol_.delay_s; }
  std::span<const double> hol_caused_s() const { return hol_.caused_s; }
  // The planned step's work on one GPU (zero when the pool's model or GPU is not known to the
  // roofline counts, e.g. a profile-only pool) and the GPU's peaks; the sums over every step.
  const perf::OpWork& step_work() const { return step_work_; }
  bool counts_work() const { return work_counter_ != nullptr; }
  double peak_flops() const { return counts_work() ? work_counter_->peak_flops() : 0.0; }
  double peak_bandwidth_Bps() const {
    return counts_work() ? work_counter_->peak_bandwidth_Bps() : 0.0;
  }
  const StepLoad& load() const { return load_; }
  LoraStats lora_stats() const { return lora_ ? lora_->stats() : LoraStats{}; }
  const LoraCache* lora_cache() const { return lora_.get(); }

  // Lifecycle and the event loop's bookkeeping (the simulator owns their meaning).
  ReplicaState state = ReplicaState::warm;
  bool stepping = false;          // a step is in flight
  int64_t step_start_ns = 0;      // start of the step in flight
  int64_t next_wake_ns = kNever;  // earliest replica_wake event queued for it
  int64_t num_outstanding = 0;    // routed here and neither finished nor rejected
  int64_t frontend_free_ns = 0;   // when its API server is done with every request routed here
  int64_t busy_ns = 0;            // total length of its steps
  int64_t num_steps = 0;
  int64_t num_batched_tokens = 0;  // tokens computed over all steps
  // Fleet bookkeeping (the simulator's fleet controller owns their meaning).
  int64_t max_inputs = std::numeric_limits<int64_t>::max();  // outstanding cap of its pool
  int64_t num_outstanding_tokens = 0;  // prompt to compute + output to produce, outstanding
  int64_t num_routed_tokens = 0;       // prompt + output tokens of every request routed here
  int32_t site = -1;                   // network region index, -1 without a network
  bool reserved = false;               // its lease holds a reserved slot (never interrupted)
  bool lease_open = false;             // in a billed state since its lease opened
  int64_t state_since_ns = 0;          // when it entered `state`
  int64_t warm_ns = 0;                 // time spent warm or draining (closed stretches)
  int64_t powered_ns = 0;  // time in states that draw power (fleet::draws_power), closed stretches
  std::vector<int64_t> in_flight;  // requests routed here, not finished (unordered)
  DecodeRun decode_run;            // its repeated decode steps not yet in the records

 private:
  int32_t index_;
  int32_t pool_;
  int64_t num_gpu_blocks_;
  std::unique_ptr<kv::TierStore> tier_store_;  // the pool's kv_tiers; null without
  std::unique_ptr<kv::BlockManager> block_manager_;
  std::unique_ptr<sched::Scheduler> scheduler_;
  sched::SchedulerStats released_scheduler_stats_;  // kept by release()
  kv::BlockManagerStats released_block_manager_stats_;
  kv::TierStoreStats released_tier_stats_;
  void account_hol(double step_s);
  void account_load(const sched::StepPlan& plan, int64_t duration_ns);

  const perf::StepTimeModel& step_model_;
  const sched::StepPlan* plan_ = nullptr;
  bool step_by_step_;
  // apply_step repeated the step: the scheduler's plan is the next one, made when the
  // scheduler had seen this many requests added and removed.
  bool repeated_ = false;
  bool plan_repeats_ = false;  // plan_repeats()
  int64_t repeated_at_num_changes_ = 0;
  std::vector<perf::SeqWork> work_;        // [num scheduled seqs] reused every step
  std::vector<perf::SeqWork> short_work_;  // [num scheduled seqs] work_ less long prefills
  std::vector<int64_t> new_tokens_;        // [num scheduled seqs]
  std::vector<sched::SeqOutput> outputs_;  // [num scheduled seqs]
  int64_t long_prefill_tokens_;
  SpeculativeSpec speculative_spec_;  // draft cost ratio, host drafting (spec_drafting.h)
  bool speculative_;
  AcceptanceModel acceptance_;
  // [num slo classes] speculative.acceptance_by_class by class index, nullopt where the pool's
  // rates apply; empty when the pool gives no class a rate.
  std::vector<std::optional<double>> class_acceptance_;
  ProposalModel proposal_;
  // Sampling steps so far per request id, with speculative.by_decode_step only (lookups only:
  // the iteration order never shows).
  std::unordered_map<int64_t, int32_t> decode_steps_;
  uint64_t accepting_seed_;  // accepts_drafts(id) draws from derive_seed(accepting_seed_, id)
  // Whether the request is one whose drafts can be accepted (speculative.accepting_share).
  bool accepts_drafts(int64_t request_id) const;
  fleet::StepStretch hol_;
  // Roofline counts of each step; null when the pool has no model or GPU figures to count by.
  std::shared_ptr<const perf::StepWorkCounter> work_counter_;
  perf::OpWork step_work_;  // of the planned step
  // The step model or the work counter prices steps by their sums (perf::RankSums): the planned
  // step's, kept between steps so that a repeated step advances them.
  bool prices_by_sums_ = false;
  // Both price by sums and nothing else reads a step's per-sequence work (no speculation): a
  // repeated step skips building it.
  bool repeats_by_sums_ = false;
  perf::RankSums step_sums_;
  StepLoad load_;
  // The pool's `lora`: its adapters loaded, and each step's distinct adapters; null without.
  std::unique_ptr<LoraCache> lora_;
  std::vector<const std::string*> step_adapters_;  // [distinct adapters of the planned step]
  const LoraSpec* lora_spec_ = nullptr;
  double peak_flops_ = 0.0;  // the GPU's, for the adapters' step work
  double bandwidth_Bps_ = 0.0;
  double lora_step_seconds(const sched::StepPlan& plan, std::span<const Request> requests);
};

}  // namespace tidal::sim
