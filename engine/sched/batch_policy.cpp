#include "engine/sched/batch_policy.h"

#include <array>
#include <stdexcept>
#include <string>
#include <string_view>

#include "engine/sched/prefill_first_policy.h"
#include "engine/sched/sched_core.h"
#include "engine/sched/static_policy.h"

namespace tidal::sched {

namespace {

class ContinuousPolicy final : public BatchPolicy {
 public:
  void plan_step(SchedulerCore& core, int64_t /*now_ns*/) override {
    core.schedule_running(RunningPass::all, false);
    while (core.swap_in_next(false)) {
    }
    if (core.num_swapped() > 0) return;  // swapped requests come back before new ones
    while (core.admit_next(false)) {
    }
  }
  int64_t next_wakeup_ns(const SchedulerCore& /*core*/) const override {
    return Scheduler::kNoWakeup;
  }
};

class ChunkedPrefillPolicy final : public BatchPolicy {
 public:
  void plan_step(SchedulerCore& core, int64_t /*now_ns*/) override {
    core.schedule_running(RunningPass::decodes, true);
    core.schedule_running(RunningPass::prefills, true);
    while (core.swap_in_next(true)) {
    }
    if (core.num_swapped() > 0) return;
    while (core.admit_next(true)) {
    }
  }
  int64_t next_wakeup_ns(const SchedulerCore& /*core*/) const override {
    return Scheduler::kNoWakeup;
  }
};

struct PolicyEntry {
  std::string_view name;
  std::unique_ptr<BatchPolicy> (*make)(const SchedulerConfig&);
  BatchPolicyTraits traits;
};

constexpr std::array<PolicyEntry, 4> kPolicyRegistry{{
    {"static", make_static_policy, {.splits_prompts = true, .supports_swap = true}},
    {"continuous",
     [](const SchedulerConfig&) -> std::unique_ptr<BatchPolicy> {
       return std::make_unique<ContinuousPolicy>();
     },
     {.splits_prompts = false, .supports_swap = true}},
    {"chunked_prefill",
     [](const SchedulerConfig&) -> std::unique_ptr<BatchPolicy> {
       return std::make_unique<ChunkedPrefillPolicy>();
     },
     {.splits_prompts = true, .supports_swap = true}},
    // A swapped-in request may be mid-prompt or decoding, so bringing it back would mix the two
    // kinds of step; SGLang itself only retracts and recomputes.
    {"prefill_first",
     [](const SchedulerConfig&) -> std::unique_ptr<BatchPolicy> {
       return make_prefill_first_policy();
     },
     {.splits_prompts = true, .supports_swap = false}},
}};

constexpr std::array<std::string_view, kPolicyRegistry.size()> kPolicyNames{
    kPolicyRegistry[0].name, kPolicyRegistry[1].name, kPolicyRegistry[2].name,
    kPolicyRegistry[3].name};

const PolicyEntry& policy_entry(std::string_view name) {
  for (const PolicyEntry& entry : kPolicyRegistry) {
    if (entry.name == name) return entry;
  }
  throw std::logic_error("sched: unknown batching policy '" + std::string(name) + "'");
}

}  // namespace

std::span<const std::string_view> batch_policy_names() {
  return kPolicyNames;
}

std::unique_ptr<BatchPolicy> make_batch_policy(const SchedulerConfig& config) {
  return policy_entry(config.policy).make(config);
}

BatchPolicyTraits batch_policy_traits(std::string_view name) {
  return policy_entry(name).traits;
}

}  // namespace tidal::sched
