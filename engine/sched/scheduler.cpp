#include "engine/sched/scheduler.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/sched/batch_policy.h"
#include "engine/sched/sched_core.h"

namespace tidal::sched {

namespace {

const SchedulerConfig& validated(const SchedulerConfig& config, const kv::BlockManager& kv) {
  validate(config, kv.config(), "scheduler");
  return config;
}

}  // namespace

Scheduler::Scheduler(const SchedulerConfig& config, kv::BlockManager& block_manager)
    : block_manager_(block_manager),
      core_(std::make_unique<SchedulerCore>(validated(config, block_manager), block_manager)),
      policy_(make_batch_policy(config)) {}

Scheduler::~Scheduler() = default;

RejectReason Scheduler::add_request(const Request& request, int64_t now_ns,
                                    int64_t num_transferred_tokens) {
  return core_->add(request, now_ns, num_transferred_tokens);
}

const StepPlan& Scheduler::schedule(int64_t now_ns) {
  step_start_ns_ = now_ns;
  core_->begin_step(now_ns);
  policy_->plan_step(*core_, now_ns);
  return core_->finish_step();
}

std::span<const RequestEvent> Scheduler::update(std::span<const SeqOutput> outputs,
                                                int64_t now_ns) {
  if (now_ns < step_start_ns_) {
    throw std::logic_error("sched::Scheduler: update() at " + std::to_string(now_ns) +
                           " ns, before its step started at " + std::to_string(step_start_ns_));
  }
  return core_->update(outputs);
}

std::optional<std::span<const RequestEvent>> Scheduler::repeat_step(int64_t now_ns) {
  if (now_ns < step_start_ns_) {
    throw std::logic_error("sched::Scheduler: repeat_step() at " + std::to_string(now_ns) +
                           " ns, before its step started at " + std::to_string(step_start_ns_));
  }
  std::optional<std::span<const RequestEvent>> events =
      core_->repeat_step(now_ns, policy_->admits_beside_running());
  if (events) step_start_ns_ = now_ns;
  return events;
}

const StepPlan& Scheduler::plan() const {
  return core_->plan();
}

void Scheduler::set_spec_tokens(int64_t request_id, int32_t num_spec_tokens) {
  core_->set_spec_tokens(request_id, num_spec_tokens);
}

std::optional<RemovedRequest> Scheduler::remove_request(int64_t request_id) {
  return core_->remove(request_id);
}

int64_t Scheduler::next_wakeup_ns() const {
  return std::min(policy_->next_wakeup_ns(*core_), core_->next_load_done_ns());
}
int64_t Scheduler::num_waiting() const {
  return core_->num_waiting();
}
int64_t Scheduler::num_running() const {
  return core_->num_running();
}
int64_t Scheduler::num_swapped() const {
  return core_->num_swapped();
}
bool Scheduler::has_unfinished() const {
  return core_->num_waiting() + core_->num_running() + core_->num_swapped() > 0;
}
const SchedulerStats& Scheduler::stats() const {
  return core_->stats();
}
const SchedulerConfig& Scheduler::config() const {
  return core_->config();
}

}  // namespace tidal::sched
