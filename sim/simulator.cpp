#include "sim/simulator.h"

#include <algorithm>
#include <memory>
#include <span>
#include <string>

#include <fmt/format.h>

#include "sim/event_loop.h"
#include "sim/fleet/spec_reading.h"
#include "sim/request_regions.h"
#include "sim/scenario_limits.h"
#include "sim/warmup.h"
#include "traces/random.h"

namespace tidal::sim {
namespace {

constexpr int64_t kProgressEvery = 4096;                      // events between progress reports
constexpr uint64_t kRouterStream = 0x7a11'0000'0000'0000ULL;  // seed of seeded routers
constexpr uint64_t kDecodeRouterStream = 0xdec0'0000'0000'0000ULL;  // of the decode router

// Events that only matter while requests remain: skipped once every request is done, so
// the run ends with the last request (replicas are billed up to then). A replica wake-up
// (e.g. a static batch's wait deadline) has nothing left to schedule by then.
bool matters_only_while_requests_remain(EventKind kind) {
  return kind == EventKind::autoscale || kind == EventKind::lifecycle ||
         kind == EventKind::spot_notice || kind == EventKind::spot_interrupt ||
         kind == EventKind::replica_wake;
}

// Rank of a class in the router queue: its position in class_priority, or after all listed.
int32_t class_rank(const RouterSpec& router, const std::string& slo_class) {
  const auto& list = router.class_priority;
  return static_cast<int32_t>(std::find(list.begin(), list.end(), slo_class) - list.begin());
}

}  // namespace

namespace detail {

Simulator::Simulator(const Scenario& scenario, RequestTable table, const RunOptions& options)
    : scenario_(scenario),
      progress_(options.progress),
      itl_samples_(options.itl_samples),
      cluster_(scenario),
      router_(make_router(scenario.router, traces::derive_seed(scenario.seed ^ kRouterStream, 0))),
      timeline_(std::max<int64_t>(1, std::llround(scenario.timeline_interval_s * 1e9)), cluster_),
      fleet_(scenario, cluster_, queue_),
      held_(static_cast<int32_t>(scenario.router.class_priority.size()) + 1),
      deps_(table.requests),
      admission_(make_router_admission(
          scenario,
          AdmissionView(cluster_, held_, result_.table, result_.records, rank_, decoding_))) {
  if (!scenario.kv_links.empty()) {
    handoff_.emplace(scenario, traces::derive_seed(scenario.seed ^ kDecodeRouterStream, 0));
  }
  result_.table = std::move(table);
  if (!result_.table.arrival_ns.empty()) {
    check_run_limits(scenario, result_.table.arrival_ns.back());
  }
  time_limit_ns_ = running_time_limit_ns(scenario, timeline_.interval_ns());
  apply_token_caps(scenario, result_.table);
  result_.models = assign_models(scenario, result_.table);
  adapters_ = assign_adapters(scenario, result_.table);
  held_ = RouterQueue(static_cast<int32_t>(scenario.router.class_priority.size()) + 1,
                      result_.models.num_groups());
  // Each model's requests have a router of their own: one model's traffic never moves
  // another's routing state (a round-robin cursor, a hash ring).
  if (result_.models.active()) {
    for (size_t m = 0; m < result_.models.models.size(); ++m) {
      model_routers_.push_back(
          make_router(scenario.router, traces::derive_seed(scenario.seed ^ kRouterStream, m + 1)));
    }
  }
  const size_t n = result_.table.requests.size();
  rank_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    rank_[i] = class_rank(scenario.router, result_.table.requests[i].slo_class);
  }
  charge_.assign(n, 0);
  in_flight_pos_.assign(n, -1);
  at_replica_.assign(n, 0);
  client_region_.assign(n, -1);
  in_metrics_.assign(n, 1);
  decoding_.assign(n, 0);
  prefill_preemptions_.assign(n, 0);
  if (handoff_) {
    num_held_tokens_.assign(n, 0);
    result_.handoffs.resize(n);
  }
  if (const auto& network = cluster_.network()) {
    client_region_ = assign_client_regions(scenario, result_.table, *network);
    for (int32_t r = 0; r < network->num_regions(); ++r) {
      nearest_sites_.push_back(network->nearest_sites(r));
    }
  }
  if (scenario.prices_egress()) {
    const auto& network = cluster_.network();
    egress_.emplace(scenario, network ? &*network : nullptr);
  }
  decode_runs_ = !handoff_ && !egress_;
  result_.records.resize(n);
  for (size_t i = 0; i < n; ++i) result_.records[i].arrival_ns = result_.table.arrival_ns[i];
  queue_.reserve(static_cast<size_t>(cluster_.num_replicas()) * 2 + 2);
  int64_t num_output_tokens = 0;
  for (const Request& r : result_.table.requests) num_output_tokens += r.output_tokens;
  if (itl_samples_) {
    result_.itl.reserve(
        static_cast<size_t>(std::min(num_output_tokens, SampleSet::kExactLimit + 1)));
  }
}

RunResult Simulator::run() {
  const auto& arrival_ns = result_.table.arrival_ns;
  const auto n = static_cast<int64_t>(arrival_ns.size());
  if (n > 0) queue_.push(arrival_ns[0], EventKind::arrival, -1, 0);
  fleet_.start();
  int64_t now = 0;
  while (!queue_.empty()) {
    const Event event = queue_.top();
    if (num_done_ == n && matters_only_while_requests_remain(event.kind)) {
      queue_.pop();
      continue;
    }
    top_handled_ = true;
    if (event.time_ns > time_limit_ns_) check_run_time(scenario_, event.time_ns);
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
      case EventKind::deliver:
        deliver(event.request, event.replica, now);
        break;
      case EventKind::frontend:
        enter_frontend(event.request, event.replica, now);
        break;
      case EventKind::autoscale: {
        // A decode pool's queue is the prefilled requests waiting for a decode replica.
        const auto pool = static_cast<int32_t>(event.request);
        const int64_t queued =
            handoff_ && scenario_.pools[static_cast<size_t>(pool)].role == fleet::PoolRole::decode
                ? static_cast<int64_t>(handoff_->waiting().size())
                : queued_for_pool(pool);
        fleet_.on_autoscale(pool, now, queued, num_done_ < n);
        break;
      }
      case EventKind::lifecycle:
        if (fleet_.on_lifecycle(event.replica, static_cast<ReplicaState>(event.request), now)) {
          dispatch_held(now);
        }
        break;
      case EventKind::spot_notice:
        fleet_.on_spot_notice(event.replica, now);
        break;
      case EventKind::spot_interrupt:
        on_spot_interrupt(event.replica, now);
        break;
      case EventKind::release:
        route(event.request, now);
        break;
      case EventKind::kv_transfer:
        on_kv_transfer(now);
        break;
      case EventKind::escalate:
        send(event.request, now);
        break;
    }
    if (top_handled_) queue_.pop();
    ++result_.num_events;
    if (progress_ != nullptr && result_.num_events % kProgressEvery == 0 && n > 0) {
      report_progress(timeline_.closed_rows(), false);
      if (progress_->stop_requested()) {
        result_.stopped_early = true;
        break;
      }
    }
  }
  fold_decode_runs();
  // Requests still pending here could never be scheduled (e.g. deps that never finished).
  // A stopped run leaves them pending: they were not simulated to the end.
  for (int64_t i = 0; i < n && !result_.stopped_early; ++i) {
    if (result_.records[static_cast<size_t>(i)].status == RequestStatus::pending) {
      if (deps_.waiting[static_cast<size_t>(i)]) arrive(i, now);
      reject(i, now, "unfinished when the simulation ended");
    }
  }
  result_.end_ns = now;
  result_.timeline = timeline_.finish(now);
  if (progress_ != nullptr) report_progress(result_.timeline, true);
  result_.fleet = fleet_.finish(now, timeline_.interval_ns());
  set_interval_dollars(result_.fleet.interval_costs, result_.timeline);
  if (handoff_) result_.kv_link_usage = handoff_->transfers().usage();
  if (egress_) result_.egress = egress_->report();
  for (int32_t i = 0; i < cluster_.num_replicas(); ++i) {
    const Replica& r = cluster_.replica(i);
    result_.replicas.push_back(ReplicaSummary{
        r.pool(), r.busy_ns, r.num_steps, r.num_batched_tokens, r.num_used_blocks(),
        r.num_gpu_blocks(), r.scheduler_stats(), r.block_manager_stats(), r.warm_ns, r.powered_ns,
        r.num_routed_tokens, r.load(), r.tier_stats(), r.lora_stats()});
  }
  return std::move(result_);
}

void Simulator::report_progress(std::span<const TimelineRow> rows, bool last) {
  fold_decode_runs();  // the sink may read the records of requests still running
  const auto n = static_cast<int64_t>(result_.records.size());
  ProgressReport report;
  report.fraction_done = n > 0 ? static_cast<double>(num_done_) / static_cast<double>(n) : 1.0;
  report.new_rows = rows.subspan(num_rows_reported_);
  report.newly_done = newly_done_;
  report.table = &result_.table;
  report.records = result_.records;
  report.handoffs = result_.handoffs;
  report.last = last;
  // For the streaming run output and the progress bar (sim/run_output_stream.h).
  report.cluster = &cluster_;
  report.now_ns = timeline_.now_ns();
  report.num_events = result_.num_events;
  progress_->update(report);
  num_rows_reported_ = rows.size();
  newly_done_.clear();
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
    if (deps_.failed_dep[k] >= 0) {
      arrive(i, now);
      reject(i, now, std::string(kDependencyRejected));
    } else if (deps_.num_unfinished[k] > 0) {
      deps_.waiting[k] = 1;
    } else if (!result_.table.requests[k].deps.empty()) {
      release(i, now);
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
  const auto k = static_cast<size_t>(request);
  result_.records[k].arrival_ns = now;
  in_metrics_[k] = kept_in_metrics(scenario_.metrics, result_.table.requests[k], now);
  timeline_.add_arrival();
}

void Simulator::release(int64_t request, int64_t now) {
  const auto k = static_cast<size_t>(request);
  // At most base::kMaxArrivalS (sim/workload_loader.cpp), so the sum stays in range.
  const int64_t think_ns = std::llround(result_.table.requests[k].think_time_s * 1e9);
  const int64_t at = deps_.done_ns[k] + think_ns;
  if (at > now) {
    schedule_event(at, EventKind::release, -1, request);
  } else {
    route(request, now);
  }
}

void Simulator::route(int64_t request, int64_t now) {
  arrive(request, now);
  if (std::optional<std::string> refusal = admission_->refuse(request, now)) {
    reject(request, now, std::move(*refusal));
    return;
  }
  send(request, now);
}

void Simulator::send(int64_t request, int64_t now) {
  if (held_.empty(result_.models.group_of(request)) && dispatch(request, now)) return;
  hold(request, false);
  dispatch_held(now);
}

void Simulator::hold(int64_t request, bool front) {
  const int32_t rank = rank_[static_cast<size_t>(request)];
  const int32_t group = result_.models.group_of(request);
  if (front) {
    held_.push_front(request, rank, group);
  } else {
    held_.push_back(request, rank, group);
  }
  timeline_.set_router_queue(held_.size());
}

void Simulator::dispatch_held(int64_t now) {
  if (handoff_) dispatch_waiting_decode(now);
  // Taken off the queue before dispatching: a dispatch may reject the request and route its
  // dependents, which re-enters here.
  // Each model's queue in turn: one model without capacity does not hold up another's.
  for (int32_t group = 0; group < held_.num_groups(); ++group) {
    while (!held_.empty(group)) {
      const int64_t request = held_.front(group);
      held_.pop_front(group);
      if (!dispatch(request, now)) {
        held_.push_front(request, rank_[static_cast<size_t>(request)], group);
        break;
      }
    }
  }
  timeline_.set_router_queue(held_.size());
}

int64_t Simulator::queued_for_pool(int32_t pool) const {
  const ModelAssignment& models = result_.models;
  if (!models.active()) return held_.size();
  // Its model's held requests and those that may go to any model; the private ones too if
  // the pool may serve them.
  const int32_t model = models.model_of_pool[static_cast<size_t>(pool)];
  int64_t queued = held_.size(0) + held_.size(model + 1);
  if (models.local_entry_pools[static_cast<size_t>(model)][static_cast<size_t>(pool)] != 0) {
    const int32_t num_models = static_cast<int32_t>(models.models.size());
    queued += held_.size(num_models + 1) + held_.size(num_models + 2 + model);
  }
  return queued;
}

int32_t Simulator::choose_replica(int64_t request) {
  const ModelAssignment& models = result_.models;
  std::span<const char> pools =
      models.active() ? models.pools_for(request) : std::span<const char>{};
  // A LoRA adapter's request: only the pools serving its adapter, among those of its model.
  if (const std::span<const char> serving = adapters_.pools_for(request); !serving.empty()) {
    const std::span<const char> among =
        pools.empty() ? std::span<const char>(cluster_.entry_pools()) : pools;
    pool_scratch_.resize(serving.size());
    for (size_t p = 0; p < serving.size(); ++p) pool_scratch_[p] = serving[p] && among[p];
    pools = pool_scratch_;
  }
  if (pools.empty()) return choose_replica_among_pools(request, *router_);
  const int32_t model = models.active() ? models.of_request[static_cast<size_t>(request)] : -1;
  cluster_.restrict_to_pools(pools);
  const int32_t target = choose_replica_among_pools(
      request, model < 0 ? *router_ : *model_routers_[static_cast<size_t>(model)]);
  cluster_.restrict_to_pools(cluster_.entry_pools());
  return target;
}

int32_t Simulator::choose_replica_among_pools(int64_t request, Router& router) {
  const Request& req = result_.table.requests[static_cast<size_t>(request)];
  const int32_t client = client_region_[static_cast<size_t>(request)];
  if (client < 0 || !scenario_.router.prefer_nearest_region) {
    return router.route(req, cluster_.loads());
  }
  const std::span<const ReplicaLoad> loads = cluster_.loads();
  for (int32_t site : nearest_sites_[static_cast<size_t>(client)]) {
    bool has_capacity = false;
    for (int32_t i = 0; i < cluster_.num_replicas() && !has_capacity; ++i) {
      has_capacity = is_usable(loads[static_cast<size_t>(i)]) && cluster_.replica(i).site == site;
    }
    if (!has_capacity) continue;
    cluster_.restrict_to_site(site);
    const int32_t target = router.route(req, cluster_.loads());
    cluster_.restrict_to_site(-1);
    return target;
  }
  return -1;
}

bool Simulator::dispatch(int64_t request, int64_t now) {
  const int32_t target = choose_replica(request);
  if (target < 0) return false;
  const auto k = static_cast<size_t>(request);
  RequestRecord& rec = result_.records[k];
  const Request& req = result_.table.requests[k];
  Replica& replica = cluster_.replica(target);
  rec.replica = target;
  rec.network_ns = 0;
  if (client_region_[k] >= 0) {
    rec.network_ns = fleet::seconds_to_ns(
        cluster_.network()->latency_s(client_region_[k], replica.site).value_or(0.0));
  }
  if (egress_) {
    timeline_.add_egress_dollars(
        egress_->add_request(req, replica.pool(), client_region_[k], replica.site));
  }
  int64_t charge = req.prompt_tokens + req.output_tokens - rec.num_output_tokens_done;
  // A prefill replica computes the prompt and produces one token.
  if (handoff_ && handoff_->hands_off(replica.pool())) {
    charge = std::min(charge, req.prompt_tokens + rec.num_output_tokens_done + 1);
  }
  book(request, replica, charge);
  // The request reaches the replica's front end after the network latency.
  if (rec.network_ns > 0) {
    queue_.push(now + rec.network_ns, EventKind::frontend, target, request);
  } else {
    enter_frontend(request, target, now);
  }
  return true;
}

void Simulator::enter_frontend(int64_t request, int32_t target, int64_t now) {
  // The engine's front end (API server, tokenization) is one process that takes requests one at
  // a time in the order they reach it, so requests sent together reach the scheduler one
  // front-end time apart: docs/scenario.md, "Engine presets".
  const int64_t frontend_ns =
      fleet::seconds_to_ns(cluster_.pool_of(target).frontend_per_request_s());
  if (frontend_ns == 0) {
    deliver(request, target, now);
    return;
  }
  Replica& replica = cluster_.replica(target);
  replica.frontend_free_ns = std::max(now, replica.frontend_free_ns) + frontend_ns;
  queue_.push(replica.frontend_free_ns, EventKind::deliver, target, request);
}

void Simulator::book(int64_t request, Replica& replica, int64_t charge) {
  const auto k = static_cast<size_t>(request);
  charge_[k] = charge;
  ++replica.num_outstanding;
  replica.num_outstanding_tokens += charge;
  replica.num_routed_tokens += charge;
  in_flight_pos_[k] = static_cast<int32_t>(replica.in_flight.size());
  replica.in_flight.push_back(request);
  cluster_.refresh_load(replica.index());
}

void Simulator::deliver(int64_t request, int32_t target, int64_t now) {
  Replica& replica = cluster_.replica(target);
  if (replica.state == ReplicaState::stopped) {  // interrupted while the request travelled
    detach(request, replica);
    decoding_[static_cast<size_t>(request)] = 0;  // it starts over at a prefill replica
    ++result_.records[static_cast<size_t>(request)].num_requeues;
    hold(request, true);
    dispatch_held(now);
    return;
  }
  // A re-queued request resumes: what it already produced becomes part of its prompt.
  const RequestRecord& rec = result_.records[static_cast<size_t>(request)];
  Request effective = result_.table.requests[static_cast<size_t>(request)];
  effective.prompt_tokens += rec.num_output_tokens_done;
  effective.output_tokens -= rec.num_output_tokens_done;
  // Disaggregated: a prefill replica stops at the first token; a decode replica receives the
  // KV of every known token but the last, which it computes in its first step.
  int64_t num_transferred_tokens = 0;
  if (decoding_[static_cast<size_t>(request)]) {
    num_transferred_tokens = effective.prompt_tokens - 1;
  } else if (handoff_ && handoff_->hands_off(replica.pool())) {
    effective.output_tokens = std::min<int64_t>(effective.output_tokens, 1);
  }
  const sched::RejectReason reason =
      replica.scheduler().add_request(effective, now, num_transferred_tokens);
  if (reason != sched::RejectReason::none) {
    detach(request, replica);
    reject(request, now, std::string(sched::reject_reason_name(reason)));
    fleet_.stop_if_drained(target, now);
    return;
  }
  at_replica_[static_cast<size_t>(request)] = 1;
  timeline_.observe(replica);
  if (!replica.stepping) request_wake(replica, now);
}

void Simulator::detach(int64_t request, Replica& replica) {
  const auto k = static_cast<size_t>(request);
  replica.forget(result_.table.requests[k].id);
  const auto pos = static_cast<size_t>(in_flight_pos_[k]);
  const int64_t last = replica.in_flight.back();
  replica.in_flight[pos] = last;
  in_flight_pos_[static_cast<size_t>(last)] = static_cast<int32_t>(pos);
  replica.in_flight.pop_back();
  in_flight_pos_[k] = -1;
  at_replica_[k] = 0;
  --replica.num_outstanding;
  replica.num_outstanding_tokens -= charge_[k];
  charge_[k] = 0;
  cluster_.refresh_load(replica.index());
}

// The provider takes the replica back: what it still holds goes back to the router (nothing
// is lost); requests still on the network are re-queued when they arrive (deliver).
void Simulator::on_spot_interrupt(int32_t index, int64_t now) {
  Replica& replica = cluster_.replica(index);
  if (replica.state == ReplicaState::stopped) return;
  fleet_.set_state(index, ReplicaState::stopped, now);
  fold_decode_run(replica);
  std::vector<int64_t> ids = replica.in_flight;
  std::sort(ids.begin(), ids.end(), std::greater<>());  // pushed to the front: lowest id first
  for (int64_t id : ids) {
    if (!at_replica_[static_cast<size_t>(id)]) continue;  // still on the network
    // Between steps the scheduler hands the request back; a step in flight is lost with the
    // replica (what the request produced so far is in its record either way).
    if (!replica.stepping) replica.scheduler().remove_request(id);
    detach(id, replica);
    ++result_.records[static_cast<size_t>(id)].num_requeues;
    hold(id, true);
  }
  if (!replica.stepping) replica.release();  // else when its lost step ends
  dispatch_held(now);
}

void Simulator::reject(int64_t request, int64_t now, std::string reason) {
  const auto k = static_cast<size_t>(request);
  RequestRecord& rec = result_.records[k];
  rec.status = RequestStatus::rejected;
  rec.reason = std::move(reason);
  timeline_.add_rejected();
  ++num_done_;
  if (progress_ != nullptr) newly_done_.push_back(request);
  for (const int64_t d : deps_.dependents_of(k)) {
    const auto dk = static_cast<size_t>(d);
    if (deps_.failed_dep[dk] >= 0) continue;
    deps_.failed_dep[dk] = request;
    if (deps_.waiting[dk]) {
      deps_.waiting[dk] = 0;
      arrive(d, now);
      reject(d, now, std::string(kDependencyRejected));
    }
  }
}

void Simulator::finish(int64_t request, int64_t now) {
  if (result_.models.escalates(request)) {
    escalate(request, now);
    return;
  }
  const auto k = static_cast<size_t>(request);
  RequestRecord& rec = result_.records[k];
  rec.status = RequestStatus::finished;
  rec.finish_ns = std::max(now + rec.network_ns, rec.last_token_ns);  // its last token, shown
  timeline_.add_finished();
  ++num_done_;
  if (progress_ != nullptr) newly_done_.push_back(request);
  for (const int64_t d : deps_.dependents_of(k)) {
    const auto dk = static_cast<size_t>(d);
    deps_.done_ns[dk] = std::max(deps_.done_ns[dk], rec.finish_ns);
    if (--deps_.num_unfinished[dk] == 0 && deps_.waiting[dk] && deps_.failed_dep[dk] < 0) {
      deps_.waiting[dk] = 0;
      release(static_cast<int64_t>(dk), now);
    }
  }
}

void Simulator::escalate(int64_t request, int64_t now) {
  const auto k = static_cast<size_t>(request);
  ModelAssignment& models = result_.models;
  RequestRecord& rec = result_.records[k];
  const int64_t answered = std::max(now + rec.network_ns, rec.last_token_ns);
  models.of_request[k] = models.escalate_to[k];
  models.escalate_to[k] = -1;
  models.escalated[k] = 1;
  // Its latency is both runs': the first answer's tokens are not the ones its client is shown.
  rec.first_token_ns = -1;
  rec.last_token_ns = -1;
  rec.max_itl_ns = 0;
  rec.num_output_tokens_done = 0;
  decoding_[k] = 0;
  prefill_preemptions_[k] = 0;
  if (handoff_) num_held_tokens_[k] = 0;
  schedule_event(answered, EventKind::escalate, -1, request);
}

}  // namespace detail

RunResult simulate(const Scenario& scenario, RequestTable table, const RunOptions& options) {
  return detail::Simulator(scenario, std::move(table), options).run();
}

RunResult simulate(const Scenario& scenario, RequestTable table, ProgressSink* progress) {
  return simulate(scenario, std::move(table), RunOptions{.progress = progress});
}

RunResult run_scenario(const Scenario& scenario, ProgressSink* progress) {
  return simulate(scenario, load_workloads(scenario), progress);
}

}  // namespace tidal::sim
