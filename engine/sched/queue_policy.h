// Queue policies: the order in which waiting requests are admitted, chosen by name
// (SchedulerConfig::queue_policy). Each names the victim rule (victim_rule.h) the running set
// is kept in. The scheduler core owns the requests and the block accounting; a WaitingQueue
// only orders slots.
//   fcfs        arrival order; a request preempted by recompute goes back to the front (vLLM's
//               default `--scheduling-policy fcfs`). Victim rule: newest.
//   priority    (priority, arrival): the most urgent first, FCFS among equals (vLLM v1
//               `--scheduling-policy priority`: vllm/v1/core/sched/request_queue.py,
//               PriorityRequestQueue; a preempted request goes back in its place, not to the
//               front). Victim rule: priority_then_newest.
//   fair_share  Virtual Token Counter (Sheng et al., "Fairness in Serving Large Language
//               Models", OSDI 2024, Algorithm 2): each tenant has a counter of the service it
//               got, fair_share_input_weight per prompt token when a request is first admitted
//               plus fair_share_output_weight per output token produced; the next admission is
//               the oldest waiting request of the backlogged tenant (one with waiting requests)
//               with the smallest counter. A tenant that becomes backlogged is lifted to the
//               smallest counter of the backlogged tenants, or when none is, to the counter of
//               the tenant that left the backlog last, so idle time earns no credit. Victim
//               rule: newest.
// Cost: fcfs O(1) per operation; priority O(log waiting); fair_share O(log tenants) per
// operation and per sampled sequence (its output tokens are charged in update()).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "engine/sched/config.h"

namespace tidal::sched {

struct SeqState;

class WaitingQueue {
 public:
  virtual ~WaitingQueue() = default;
  // A newly added request.
  virtual void push(int32_t slot, const SeqState& st) = 0;
  // A request back from a recompute preemption.
  virtual void push_preempted(int32_t slot, const SeqState& st) = 0;
  // The request to admit next; requires size() > 0.
  virtual int32_t front() const = 0;
  // Takes front() out: it is being admitted (`st` is its state).
  virtual void pop_front(const SeqState& st) = 0;
  // Takes a waiting request out without admitting it (remove_request).
  virtual void erase(int32_t slot, const SeqState& st) = 0;
  virtual int64_t size() const = 0;
  // The request at `index` in admission order; only fcfs supports it (static batching forms
  // its batches from it; validate() allows static only with fcfs), std::logic_error else.
  virtual int32_t at(int64_t index) const = 0;
  // A running request in `slot` produced `num_tokens` output tokens.
  virtual void on_output_tokens(int32_t slot, int64_t num_tokens) = 0;
};

// `config.queue_policy` must be one of queue_policy_names() (validate() checks it).
std::unique_ptr<WaitingQueue> make_waiting_queue(const SchedulerConfig& config);
// The victim rule a queue policy keeps its running set in; logic_error for an unknown name.
std::string_view queue_policy_victim_rule(std::string_view queue_policy);

}  // namespace tidal::sched
