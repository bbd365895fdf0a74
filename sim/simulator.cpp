#include "sim/simulator.h"

#include <algorithm>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "sim/cluster.h"
#include "sim/event_queue.h"
#include "sim/router.h"

namespace tidal::sim {
namespace {

constexpr int64_t kProgressEvery = 4096;  // events between progress reports

class Simulator {
 public:
  Simulator(const Scenario& scenario, RequestTable table, ProgressSink* progress);
  RunResult run();

 private:
  void on_arrivals(int64_t now);
  void on_wake(int32_t replica, int64_t now);
  void on_step_end(int32_t replica, int64_t now);
  void arrive(int64_t request, int64_t now);
  void route(int64_t request, int64_t now);
  void reject(int64_t request, int64_t now, std::string reason);
  void finish(int64_t request, int64_t now);
  void start_step(Replica& replica, int64_t now);
  void request_wake(Replica& replica, int64_t at);
  void build_dependents();
  void schedule_event(int64_t time_ns, EventKind kind, int32_t replica, int64_t request);

  const Scenario& scenario_;
  ProgressSink* progress_;
  RunResult result_;
  Cluster cluster_;
  std::unique_ptr<Router> router_;
  EventQueue queue_;
  // The event being handled is still at the queue's top; the first event its handler schedules
  // takes that slot (EventQueue::replace_top), which pops and pushes in one sift.
  bool top_handled_ = false;
  TimelineRecorder timeline_;
  size_t next_arrival_ = 0;  // first request whose arrival is not yet queued or handled
  int64_t num_done_ = 0;     // requests finished or rejected

  // Dependencies (agent DAGs): a request reaches the router once it has arrived and every
  // request it depends on has finished.
  std::vector<int32_t> num_unfinished_deps_;  // [num_requests]
  std::vector<int64_t> failed_dep_;           // [num_requests] a rejected dep's id, or -1
  std::vector<char> waiting_on_deps_;         // [num_requests] arrived, deps not finished
  std::vector<int64_t> dependents_begin_;     // [num_requests + 1] CSR offsets
  std::vector<int64_t> dependents_;           // [num dep edges] requests that wait on each
};

Simulator::Simulator(const Scenario& scenario, RequestTable table, ProgressSink* progress)
    : scenario_(scenario),
      progress_(progress),
      cluster_(scenario),
      router_(make_router(scenario.router.policy)),
      timeline_(std::max<int64_t>(1, std::llround(scenario.timeline_interval_s * 1e9)), cluster_) {
  result_.table = std::move(table);
  const size_t n = result_.table.requests.size();
  result_.records.resize(n);
  for (size_t i = 0; i < n; ++i) result_.records[i].arrival_ns = result_.table.arrival_ns[i];
  queue_.reserve(static_cast<size_t>(cluster_.num_replicas()) * 2 + 2);
  int64_t num_output_tokens = 0;
  for (const Request& r : result_.table.requests) num_output_tokens += r.output_tokens;
  result_.itl.reserve(static_cast<size_t>(std::min(num_output_tokens, SampleSet::kExactLimit + 1)));
  build_dependents();
}

void Simulator::build_dependents() {
  const auto& requests = result_.table.requests;
  const size_t n = requests.size();
  num_unfinished_deps_.assign(n, 0);
  failed_dep_.assign(n, -1);
  waiting_on_deps_.assign(n, 0);
  dependents_begin_.assign(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    num_unfinished_deps_[i] = static_cast<int32_t>(requests[i].deps.size());
    for (int64_t dep : requests[i].deps) ++dependents_begin_[static_cast<size_t>(dep) + 1];
  }
  for (size_t i = 0; i < n; ++i) dependents_begin_[i + 1] += dependents_begin_[i];
  dependents_.resize(static_cast<size_t>(dependents_begin_[n]));
  std::vector<int64_t> fill(dependents_begin_.begin(), dependents_begin_.end() - 1);  // [n]
  for (size_t i = 0; i < n; ++i) {
    for (int64_t dep : requests[i].deps) {
      dependents_[static_cast<size_t>(fill[static_cast<size_t>(dep)]++)] = static_cast<int64_t>(i);
    }
  }
}

RunResult Simulator::run() {
  const auto& arrival_ns = result_.table.arrival_ns;
  const auto n = static_cast<int64_t>(arrival_ns.size());
  if (n > 0) queue_.push(arrival_ns[0], EventKind::arrival, -1, 0);
  int64_t now = 0;
  while (!queue_.empty()) {
    const Event event = queue_.top();
    top_handled_ = true;
    now = event.time_ns;
    timeline_.advance_to(now);
    switch (event.kind) {
      case EventKind::arrival:
        on_arrivals(now);
        break;
      case EventKind::replica_wake:
        on_wake(event.replica, now);
        break;
      case EventKind::step_end:
        on_step_end(event.replica, now);
        break;
    }
    if (top_handled_) queue_.pop();
    ++result_.num_events;
    if (progress_ != nullptr && result_.num_events % kProgressEvery == 0 && n > 0) {
      progress_->update(static_cast<double>(num_done_) / static_cast<double>(n));
    }
  }
  // Requests still pending here could never be scheduled (e.g. deps that never finished).
  for (int64_t i = 0; i < n; ++i) {
    if (result_.records[static_cast<size_t>(i)].status == RequestStatus::pending) {
      if (waiting_on_deps_[static_cast<size_t>(i)]) arrive(i, now);
      reject(i, now, "unfinished when the simulation ended");
    }
  }
  result_.end_ns = now;
  result_.timeline = timeline_.finish(now);
  for (int32_t i = 0; i < cluster_.num_replicas(); ++i) {
    const Replica& r = cluster_.replica(i);
    result_.replicas.push_back(ReplicaSummary{
        r.pool(), r.busy_ns, r.num_steps, r.num_batched_tokens, r.block_manager().num_used_blocks(),
        r.block_manager().num_gpu_blocks(), r.scheduler().stats(), r.block_manager().stats()});
  }
  if (progress_ != nullptr) progress_->update(1.0);
  return std::move(result_);
}

void Simulator::schedule_event(int64_t time_ns, EventKind kind, int32_t replica, int64_t request) {
  if (top_handled_) {
    queue_.replace_top(time_ns, kind, replica, request);
    top_handled_ = false;
  } else {
    queue_.push(time_ns, kind, replica, request);
  }
}

void Simulator::on_arrivals(int64_t now) {
  const auto& arrival_ns = result_.table.arrival_ns;
  // Every request arriving at `now` is handled by this one event, so a replica woken by the
  // first sees all of them in its next step.
  while (next_arrival_ < arrival_ns.size() && arrival_ns[next_arrival_] == now) {
    const auto i = static_cast<int64_t>(next_arrival_++);
    const auto k = static_cast<size_t>(i);
    if (failed_dep_[k] >= 0) {
      arrive(i, now);
      reject(i, now, fmt::format("dependency {} was rejected", failed_dep_[k]));
    } else if (num_unfinished_deps_[k] > 0) {
      waiting_on_deps_[k] = 1;
    } else {
      route(i, now);
    }
  }
  if (next_arrival_ < arrival_ns.size()) {
    schedule_event(arrival_ns[next_arrival_], EventKind::arrival, -1,
                   static_cast<int64_t>(next_arrival_));
  }
}

// The request is done waiting (for its arrival time and its deps): it counts as arrived now.
void Simulator::arrive(int64_t request, int64_t now) {
  result_.records[static_cast<size_t>(request)].arrival_ns = now;
  timeline_.add_arrival();
}

void Simulator::route(int64_t request, int64_t now) {
  arrive(request, now);
  RequestRecord& rec = result_.records[static_cast<size_t>(request)];
  const Request& req = result_.table.requests[static_cast<size_t>(request)];
  const int32_t target = router_->route(req, cluster_.loads());
  if (target < 0) {
    reject(request, now, "no warm replica");
    return;
  }
  rec.replica = target;
  Replica& replica = cluster_.replica(target);
  const sched::RejectReason reason = replica.scheduler().add_request(req, now);
  if (reason != sched::RejectReason::none) {
    reject(request, now, std::string(sched::reject_reason_name(reason)));
    return;
  }
  ++replica.num_outstanding;
  cluster_.refresh_load(target);
  if (!replica.stepping) request_wake(replica, now);
}

void Simulator::reject(int64_t request, int64_t now, std::string reason) {
  const auto k = static_cast<size_t>(request);
  RequestRecord& rec = result_.records[k];
  rec.status = RequestStatus::rejected;
  rec.reason = std::move(reason);
  timeline_.add_rejected();
  ++num_done_;
  for (int64_t j = dependents_begin_[k]; j < dependents_begin_[k + 1]; ++j) {
    const int64_t d = dependents_[static_cast<size_t>(j)];
    const auto dk = static_cast<size_t>(d);
    if (failed_dep_[dk] >= 0) continue;
    failed_dep_[dk] = request;
    if (waiting_on_deps_[dk]) {
      waiting_on_deps_[dk] = 0;
      arrive(d, now);
      reject(d, now, fmt::format("dependency {} was rejected", request));
    }
  }
}

void Simulator::finish(int64_t request, int64_t now) {
  const auto k = static_cast<size_t>(request);
  RequestRecord& rec = result_.records[k];
  rec.status = RequestStatus::finished;
  rec.finish_ns = now;
  timeline_.add_finished();
  ++num_done_;
  for (int64_t j = dependents_begin_[k]; j < dependents_begin_[k + 1]; ++j) {
    const auto dk = static_cast<size_t>(dependents_[static_cast<size_t>(j)]);
    if (--num_unfinished_deps_[dk] == 0 && waiting_on_deps_[dk] && failed_dep_[dk] < 0) {
      waiting_on_deps_[dk] = 0;
      route(static_cast<int64_t>(dk), now);
    }
  }
}

void Simulator::request_wake(Replica& replica, int64_t at) {
  if (at >= replica.next_wake_ns) return;
  replica.next_wake_ns = at;
  schedule_event(at, EventKind::replica_wake, replica.index(), -1);
}

void Simulator::on_wake(int32_t index, int64_t now) {
  Replica& replica = cluster_.replica(index);
  if (now == replica.next_wake_ns) replica.next_wake_ns = Replica::kNever;
  if (!replica.stepping) start_step(replica, now);
}

void Simulator::start_step(Replica& replica, int64_t now) {
  const int64_t duration_ns = replica.plan_step(now);
  if (duration_ns < 0) {
    // Idle until an arrival, or until the batching policy's own deadline (static batching).
    const int64_t wakeup = replica.scheduler().next_wakeup_ns();
    if (wakeup != sched::Scheduler::kNoWakeup) request_wake(replica, std::max(wakeup, now + 1));
    cluster_.refresh_load(replica.index());
    return;
  }
  const sched::StepPlan& plan = replica.plan();
  for (const sched::ScheduledSeq& seq : plan.seqs) {
    if (seq.first_scheduled) {
      result_.records[static_cast<size_t>(seq.request_id)].first_scheduled_ns = now;
    }
  }
  const int64_t end = now + duration_ns;
  replica.stepping = true;
  replica.step_start_ns = now;
  replica.busy_ns += duration_ns;
  ++replica.num_steps;
  replica.num_batched_tokens += plan.num_batched_tokens;
  ++result_.num_steps;
  timeline_.add_busy(now, end);
  if (static_cast<int64_t>(result_.slices.size()) < scenario_.output.trace_max_slices) {
    result_.slices.push_back(StepSlice{replica.index(), now, end,
                                       static_cast<int32_t>(plan.seqs.size()),
                                       plan.num_batched_tokens});
  } else {
    ++result_.num_slices_dropped;
  }
  schedule_event(end, EventKind::step_end, replica.index(), -1);
  cluster_.refresh_load(replica.index());
}

void Simulator::on_step_end(int32_t index, int64_t now) {
  Replica& replica = cluster_.replica(index);
  replica.stepping = false;
  const std::span<const sched::RequestEvent> events = replica.scheduler().update({}, now);
  for (const sched::RequestEvent& ev : events) {
    RequestRecord& rec = result_.records[static_cast<size_t>(ev.request_id)];
    rec.num_preemptions = ev.num_preemptions;
    rec.num_prefix_hit_tokens = ev.num_prefix_hit_tokens;
    if (ev.num_new_output_tokens > 0) {
      // Tokens of one step come out together: the first closes the gap since the previous
      // token, the others (accepted speculative tokens) follow with no gap.
      if (ev.first_token) {
        rec.first_token_ns = now;
      } else {
        const int64_t gap = now - rec.last_token_ns;
        result_.itl.add(static_cast<double>(gap) / 1e9);
        rec.max_itl_ns = std::max(rec.max_itl_ns, gap);
      }
      for (int32_t t = 1; t < ev.num_new_output_tokens; ++t) result_.itl.add(0.0);
      rec.last_token_ns = now;
      rec.num_output_tokens_done += ev.num_new_output_tokens;
      timeline_.add_output_tokens(ev.num_new_output_tokens);
    }
    if (ev.finished) {
      --replica.num_outstanding;
      finish(ev.request_id, now);
    }
  }
  start_step(replica, now);
}

}  // namespace

RunResult simulate(const Scenario& scenario, RequestTable table, ProgressSink* progress) {
  return Simulator(scenario, std::move(table), progress).run();
}

RunResult run_scenario(const Scenario& scenario, ProgressSink* progress) {
  return simulate(scenario, load_workloads(scenario), progress);
}

}  // namespace tidal::sim
