// The simulator's event loop (internal to sim/: simulator.h is the interface). One class, its
// member functions in three files by concern:
//   simulator.cpp          the run loop, arrivals, routing, delivery, rejections and finishes
//   simulator_steps.cpp    replica steps: waking, planning, applying what a step produced
//   simulator_handoff.cpp  disaggregated serving: KV hand-off to decode replicas
//   simulator_decode_run.cpp  repeated decode steps whose records are updated at once
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/cluster.h"
#include "sim/egress_meter.h"
#include "sim/event_queue.h"
#include "sim/fleet_controller.h"
#include "sim/kv_handoff.h"
#include "sim/lora_assignment.h"
#include "sim/request_deps.h"
#include "sim/router.h"
#include "sim/router_admission.h"
#include "sim/router_queue.h"
#include "sim/simulator.h"
#include "sim/timeline.h"

namespace tidal::sim::detail {

class Simulator {
 public:
  Simulator(const Scenario& scenario, RequestTable table, const RunOptions& options);
  RunResult run();

 private:
  void on_arrivals(int64_t now);
  void on_wake(int32_t replica, int64_t now);
  void on_step_end(int32_t replica, int64_t now);
  // Whether the tokens of `ev`, produced on `replica`, wait for the decode side to show them
  // (Scenario::first_token_from).
  bool holds_tokens(const Replica& replica, const sched::RequestEvent& ev) const;
  // Whether the request's gaps between output tokens are ITL samples: the run keeps them, it is
  // past its warm-up, and no cascade escalates its answer (which its client is then not shown).
  bool keeps_itl(int64_t request) const {
    return itl_samples_ && in_metrics_[static_cast<size_t>(request)] != 0 &&
           !result_.models.escalates(request);
  }
  void arrive(int64_t request, int64_t now);
  // Every dep of `request` has finished: it arrives its think time after the last of them
  // (as the client saw it), now or by a release event.
  void release(int64_t request, int64_t now);
  void route(int64_t request, int64_t now);
  // Sends an admitted request to a replica, or holds it at the router until one can take it.
  void send(int64_t request, int64_t now);
  // Sends a request to a replica the router picks (nearest region first with a network);
  // false when no replica can take it now.
  bool dispatch(int64_t request, int64_t now);
  int32_t choose_replica(int64_t request);
  // choose_replica among the pools the cluster's pool filter lets through.
  int32_t choose_replica_among_pools(int64_t request, Router& router);
  // Requests held at the router that the pool's replicas could take: the autoscaler's queue.
  int64_t queued_for_pool(int32_t pool) const;
  // The request reaches the replica's front end: it is delivered when the front end is done
  // with it and every request that reached it before.
  void enter_frontend(int64_t request, int32_t replica, int64_t now);
  void deliver(int64_t request, int32_t replica, int64_t now);
  // Sends held requests while replicas take them.
  void dispatch_held(int64_t now);
  void hold(int64_t request, bool front);
  // Takes a request off its replica's books (finished, rejected or re-queued).
  void detach(int64_t request, Replica& replica);
  void on_spot_interrupt(int32_t replica, int64_t now);
  // Disaggregated serving: a prefill replica produced the request's first token; its KV goes
  // to a decode replica when one can take it.
  void hand_off(int64_t request, int64_t now);
  // Starts the KV transfers of prefilled requests while decode replicas take them.
  void dispatch_waiting_decode(int64_t now);
  void on_kv_transfer(int64_t now);
  void schedule_kv_transfer_event();
  // Books a request on `replica` (outstanding counts, tokens still to compute or produce).
  void book(int64_t request, Replica& replica, int64_t charge);
  void reject(int64_t request, int64_t now, std::string reason);
  // The request's answer is complete: it is finished, or a cascade escalates it (escalate).
  void finish(int64_t request, int64_t now);
  // A cascade's first answer is not the last: the request runs again, on the second model,
  // once that answer reached its client (the router's side of the network).
  void escalate(int64_t request, int64_t now);
  void start_step(Replica& replica, int64_t now);
  // The step that ended at `now` repeated the one before: applies it as part of the replica's
  // decode run (sim/decode_run.h), beginning one if none is open; false, changing nothing, when
  // it cannot (the run's limit, a sequence that finishes, a kind of run that shows tokens
  // otherwise), and on_step_end applies it one request at a time.
  bool continue_decode_run(Replica& replica, int64_t now);
  bool begin_decode_run(Replica& replica);
  // Puts the run's steps into its requests' records and charges and closes it (none: nothing).
  void fold_decode_run(Replica& replica);
  void fold_decode_runs();  // every replica's
  void request_wake(Replica& replica, int64_t at);
  void schedule_event(int64_t time_ns, EventKind kind, int32_t replica, int64_t request);
  // Hands the sink what happened since the previous report; `rows` are the intervals closed
  // so far.
  void report_progress(std::span<const TimelineRow> rows, bool last);

  const Scenario& scenario_;
  ProgressSink* progress_;
  bool itl_samples_;  // RunOptions::itl_samples
  // Repeated decode steps may be deferred (sim/decode_run.h): not where a step's tokens are
  // held for a decode replica or priced as egress per response.
  bool decode_runs_ = false;
  RunResult result_;
  Cluster cluster_;
  std::unique_ptr<Router> router_;  // requests that name no model (all, without model routing)
  std::vector<std::unique_ptr<Router>> model_routers_;  // [num_models] with model routing
  EventQueue queue_;
  // The event being handled is still at the queue's top; the first event its handler schedules
  // takes that slot (EventQueue::replace_top), which pops and pushes in one sift.
  bool top_handled_ = false;
  // Events past this time are checked against the run's limits (sim/scenario_limits.h).
  int64_t time_limit_ns_ = 0;
  TimelineRecorder timeline_;
  FleetController fleet_;
  RouterQueue held_;
  std::vector<int32_t> rank_;           // [num_requests] router-queue class rank
  std::vector<int64_t> charge_;         // [num_requests] tokens charged to its replica
  std::vector<int32_t> in_flight_pos_;  // [num_requests] index in replica.in_flight
  std::vector<char> at_replica_;  // [num_requests] in its replica's scheduler (not on the network)
  std::vector<int32_t> client_region_;  // [num_requests] region index, -1 without network
  std::vector<char> in_metrics_;        // [num_requests] not warm-up (sim/warmup.h): ITL kept
  std::vector<std::vector<int32_t>> nearest_sites_;  // [num regions] hosting regions, nearest first
  size_t next_arrival_ = 0;  // first request whose arrival is not yet queued or handled
  int64_t num_done_ = 0;     // requests finished or rejected
  // For the progress sink (kept only with one): requests ended since the last report, and
  // how many timeline rows the reports have handed over.
  std::vector<int64_t> newly_done_;  // [requests ended since the last report]
  size_t num_rows_reported_ = 0;

  RequestDeps deps_;                          // who waits on whom (sim/request_deps.h)
  std::optional<KvHandoff> handoff_;          // with disaggregated pools only
  std::vector<char> decoding_;                // [num_requests] on a decode replica (or on the way)
  std::vector<int32_t> prefill_preemptions_;  // [num_requests] preemptions before its hand-off
  // [num_requests] with handoff_ only: output tokens produced on a prefill replica that its
  // client has not seen yet (Scenario::first_token_from decode: shown from the decode side).
  std::vector<int32_t> num_held_tokens_;
  int64_t kv_transfer_event_ns_ = fleet::KvTransfers::kNever;  // earliest one queued
  std::unique_ptr<RouterAdmission> admission_;  // router.admission (sim/router_admission.h)
  std::optional<EgressMeter> egress_;           // when the scenario prices egress
  AdapterRouting adapters_;                     // pools serving each request's LoRA adapter
  std::vector<char> pool_scratch_;              // [num_pools] a request's allowed pools
};

}  // namespace tidal::sim::detail
