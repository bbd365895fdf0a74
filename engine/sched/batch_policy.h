// Batching policies: how a step is filled from the running, swapped and waiting requests.
// Small classes behind one interface, chosen by name (SchedulerConfig::policy):
//   static          request-level batching (static_policy.h): form a batch of up to
//                   static_batch_size requests (or whatever waited static_batch_timeout_s) whose
//                   padded KV fits, prefill it in chunks, decode it until its last request
//                   finishes, admit nothing meanwhile.
//   continuous      iteration-level batching (Orca / vLLM): running requests first, then
//                   swapped ones, then waiting ones FCFS while blocks, sequences and the token
//                   budget allow; a request's whole remaining prompt goes in one step.
//   chunked_prefill stall-free batching (Sarathi): decodes first, then running prefills, then
//                   swapped and waiting ones, each taking what is left of the token budget.
//   prefill_first   SGLang's default (prefill_first_policy.h): a step is either prompt chunks
//                   or decodes, never both; prompts first whenever one can run.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "engine/sched/config.h"

namespace tidal::sched {

class SchedulerCore;

class BatchPolicy {
 public:
  virtual ~BatchPolicy() = default;
  // Fills the step through core's step-building calls (between begin_step and finish_step).
  virtual void plan_step(SchedulerCore& core, int64_t now_ns) = 0;
  // Earliest time a step could start without new arrivals, or Scheduler::kNoWakeup.
  virtual int64_t next_wakeup_ns(const SchedulerCore& core) const = 0;
  // Whether a step may admit a waiting request while requests are running (false for a policy
  // that admits only between batches).
  virtual bool admits_beside_running() const { return true; }
};

// `config.policy` must be one of batch_policy_names() (validate() checks it); logic_error else.
std::unique_ptr<BatchPolicy> make_batch_policy(const SchedulerConfig& config);

// What a policy asks of the configuration (validate() checks it).
struct BatchPolicyTraits {
  bool splits_prompts = false;  // cuts prompts into chunks; else max_num_batched_tokens must be
                                // at least max_model_len so every prompt fits one step
  bool supports_swap = true;    // works with preemption "swap"
};
// The traits of a registered policy; logic_error for an unknown name.
BatchPolicyTraits batch_policy_traits(std::string_view name);

}  // namespace tidal::sched
