// A replica: one model instance on `tp` GPUs running the shared batch scheduler over its own
// KV block pool, with the pool's step-time model standing in for execution.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "engine/kv/block_manager.h"
#include "engine/sched/scheduler.h"
#include "sim/perf/step_time_model.h"
#include "sim/replica_state.h"
#include "sim/scenario.h"

namespace tidal::sim {

class Replica {
 public:
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

  Replica(int32_t index, int32_t pool, const PoolSpec& spec);
  Replica(const Replica&) = delete;
  Replica& operator=(const Replica&) = delete;

  int32_t index() const { return index_; }
  int32_t pool() const { return pool_; }
  sched::Scheduler& scheduler() { return scheduler_; }
  const sched::Scheduler& scheduler() const { return scheduler_; }
  const kv::BlockManager& block_manager() const { return block_manager_; }

  // Asks the scheduler for the next step at `now_ns` and the step-time model for its length
  // (compute plus KV swap copies). Returns the duration in ns (>= 1), or -1 when the plan is
  // empty. The plan stays readable through plan() until the step is applied.
  int64_t plan_step(int64_t now_ns);
  const sched::StepPlan& plan() const { return *plan_; }

  // Lifecycle and the event loop's bookkeeping (the simulator owns their meaning).
  ReplicaState state = ReplicaState::warm;
  bool stepping = false;          // a step is in flight
  int64_t step_start_ns = 0;      // start of the step in flight
  int64_t next_wake_ns = kNever;  // earliest replica_wake event queued for it
  int64_t num_outstanding = 0;    // routed here and neither finished nor rejected
  int64_t busy_ns = 0;            // total length of its steps
  int64_t num_steps = 0;
  int64_t num_batched_tokens = 0;  // tokens computed over all steps

 private:
  int32_t index_;
  int32_t pool_;
  kv::BlockManager block_manager_;
  sched::Scheduler scheduler_;
  const perf::StepTimeModel& step_model_;
  const sched::StepPlan* plan_ = nullptr;
  std::vector<perf::SeqWork> work_;  // [num scheduled seqs] reused every step
};

}  // namespace tidal::sim
