#include "engine/sched/prefill_first_policy.h"

#include "engine/sched/sched_core.h"

namespace tidal::sched {
namespace {

class PrefillFirstPolicy final : public BatchPolicy {
 public:
  void plan_step(SchedulerCore& core, int64_t /*now_ns*/) override {
    // Prefill step: prompts in progress take their next chunk, then new requests come in.
    core.schedule_running(RunningPass::prefills, true);
    while (core.admit_next(true)) {
    }
    if (core.num_scheduled() > 0) return;
    // No prompt could run: a decode step.
    core.schedule_running(RunningPass::decodes, true);
  }
  int64_t next_wakeup_ns(const SchedulerCore& /*core*/) const override {
    return Scheduler::kNoWakeup;
  }
};

}  // namespace

std::unique_ptr<BatchPolicy> make_prefill_first_policy() {
  return std::make_unique<PrefillFirstPolicy>();
}

}  // namespace tidal::sched
