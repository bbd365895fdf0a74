// Victim rules: which running request gives its KV blocks up first when blocks run out. The
// scheduler keeps its running (and swapped) requests sorted by (rank, arrival) and preempts
// from the back, so a rule is only a rank; among equal ranks the newest request goes first.
//   newest                the latest-arrived running request (vLLM's FCFS scheduling: the
//                         tail of its running list).
//   priority_then_newest  the least urgent request (largest Request::priority), then the
//                         newest (vLLM v1 under `--scheduling-policy priority`:
//                         vllm/v1/core/sched/scheduler.py, Scheduler.schedule, the victim is
//                         max(running, key=(priority, arrival_time))).
// A rule that ranks requests differently also lets a waiting request preempt running ones of a
// larger rank when its blocks do not fit (SchedulerCore::admit_next).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "traces/request.h"

namespace tidal::sched {

class VictimRule {
 public:
  virtual ~VictimRule() = default;
  // Requests of a larger rank are preempted first.
  virtual int32_t rank(const Request& request) const = 0;
};

// `name` is "newest" or "priority_then_newest"; std::logic_error else.
std::unique_ptr<VictimRule> make_victim_rule(std::string_view name);

}  // namespace tidal::sched
