// The event loop's replica steps: waking idle replicas, planning a step and applying what it
// produced (tokens to clients, finishes, hand-offs).
#include <algorithm>
#include <cassert>

#include "sim/event_loop.h"
#include "sim/fleet/spec_reading.h"

namespace tidal::sim::detail {

void Simulator::request_wake(Replica& replica, int64_t at) {
  if (at >= replica.next_wake_ns) return;
  replica.next_wake_ns = at;
  schedule_event(at, EventKind::replica_wake, replica.index(), -1);
}

void Simulator::on_wake(int32_t index, int64_t now) {
  Replica& replica = cluster_.replica(index);
  if (now == replica.next_wake_ns) replica.next_wake_ns = Replica::kNever;
  if (!replica.stepping && replica.state != ReplicaState::stopped) start_step(replica, now);
}

void Simulator::start_step(Replica& replica, int64_t now) {
  const int64_t duration_ns = replica.plan_step(now, result_.table.requests);
  timeline_.observe(replica, duration_ns);
  if (duration_ns < 0) {
    // Idle until an arrival, or until the batching policy's own deadline (static batching).
    const int64_t wakeup = replica.scheduler().next_wakeup_ns();
    if (wakeup != sched::Scheduler::kNoWakeup) request_wake(replica, std::max(wakeup, now + 1));
    cluster_.refresh_load(replica.index());
    return;
  }
  const sched::StepPlan& plan = replica.plan();
  for (const sched::ScheduledSeq& seq : plan.seqs) {
    if (!seq.first_scheduled) continue;
    const auto k = static_cast<size_t>(seq.request_id);
    if (decoding_[k]) {
      result_.handoffs[k].decode_first_scheduled_ns = now;
    } else {
      result_.records[k].first_scheduled_ns = now;
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

bool Simulator::holds_tokens(const Replica& replica, const sched::RequestEvent& ev) const {
  if (!handoff_ || scenario_.first_token_from != fleet::FirstTokenFrom::decode) return false;
  const auto k = static_cast<size_t>(ev.request_id);
  // Produced on a prefill replica by a request that goes on to a decode replica.
  return !decoding_[k] && handoff_->hands_off(replica.pool()) &&
         result_.records[k].num_output_tokens_done + ev.num_new_output_tokens <
             result_.table.requests[k].output_tokens;
}

void Simulator::on_step_end(int32_t index, int64_t now) {
  Replica& replica = cluster_.replica(index);
  replica.stepping = false;
  if (replica.state == ReplicaState::stopped) {  // interrupted: the step is lost
    assert(!replica.decode_run.active());        // on_spot_interrupt folded it
    if (!replica.released()) replica.release();
    return;
  }
  if (continue_decode_run(replica, now)) {
    start_step(replica, now);
    fleet_.stop_if_drained(index, now);
    return;
  }
  fold_decode_run(replica);
  const std::span<const sched::SeqOutput> outputs = replica.step_outputs(result_.table.slo_class);
  const sched::StepPlan& plan = replica.plan();
  const std::span<const double> hol_delay = replica.hol_delay_s();
  const std::span<const double> hol_caused = replica.hol_caused_s();
  // Outstanding tokens: computed prompt tokens and produced output tokens leave the charge.
  for (size_t i = 0; i < plan.seqs.size(); ++i) {
    const sched::ScheduledSeq& seq = plan.seqs[i];
    const auto k = static_cast<size_t>(seq.request_id);
    RequestRecord& rec = result_.records[k];
    if (!hol_delay.empty()) {
      rec.hol_delay_s += hol_delay[i];
      rec.hol_caused_s += hol_caused[i];
    }
    const int64_t accepted = outputs.empty() ? 0 : std::max(0, outputs[i].num_accepted_tokens - 1);
    const int64_t done = std::min(charge_[k], seq.num_new_tokens - seq.num_spec_tokens + accepted);
    charge_[k] -= done;
    replica.num_outstanding_tokens -= done;
  }
  const std::span<const sched::RequestEvent> events = replica.apply_step(outputs, now);
  // The engine's front end detokenizes a step's tokens before streaming them.
  const int64_t detokenize_ns =
      fleet::seconds_to_ns(cluster_.pool_of(index).detokenize_per_token_s());
  bool freed = false;
  for (const sched::RequestEvent& ev : events) {
    RequestRecord& rec = result_.records[static_cast<size_t>(ev.request_id)];
    const bool keep_itl = keeps_itl(ev.request_id);
    // Only disaggregated runs hand requests to decode replicas.
    const bool decoding = handoff_ && decoding_[static_cast<size_t>(ev.request_id)] != 0;
    rec.num_preemptions = ev.num_preemptions +
                          (decoding ? prefill_preemptions_[static_cast<size_t>(ev.request_id)] : 0);
    if (rec.num_requeues == 0 && !decoding) rec.num_prefix_hit_tokens = ev.num_prefix_hit_tokens;
    if (ev.num_new_output_tokens > 0 && holds_tokens(replica, ev)) {
      num_held_tokens_[static_cast<size_t>(ev.request_id)] += ev.num_new_output_tokens;
      rec.num_output_tokens_done += ev.num_new_output_tokens;
    } else if (ev.num_new_output_tokens > 0) {
      // Tokens of one step come out together, reaching the client network_ns (and their
      // detokenization) later: the first closes the gap since the previous token, the others
      // (accepted speculative tokens, tokens a prefill replica produced) follow with no gap. A
      // re-queued request's first token came from its first replica. Its TTFT counts for the
      // pool that prefilled it.
      int32_t num_shown = ev.num_new_output_tokens;
      if (handoff_) {
        num_shown += num_held_tokens_[static_cast<size_t>(ev.request_id)];
        num_held_tokens_[static_cast<size_t>(ev.request_id)] = 0;
      }
      const int64_t shown = now + rec.network_ns + detokenize_ns * num_shown;
      if (rec.first_token_ns < 0) {
        rec.first_token_ns = shown;
        fleet_.add_ttft(cluster_.replica(rec.replica).pool(),
                        static_cast<double>(shown - rec.arrival_ns) / 1e9);
      } else {
        const int64_t gap = shown - rec.last_token_ns;
        if (keep_itl) result_.itl.add(static_cast<double>(gap) / 1e9);
        rec.max_itl_ns = std::max(rec.max_itl_ns, gap);
      }
      if (keep_itl) {
        for (int32_t t = 1; t < num_shown; ++t) result_.itl.add(0.0);
      }
      rec.last_token_ns = shown;
      const int64_t num_done_before =
          rec.num_output_tokens_done + ev.num_new_output_tokens - num_shown;
      if (egress_) {
        timeline_.add_egress_dollars(egress_->add_response(
            result_.table.requests[static_cast<size_t>(ev.request_id)], num_done_before, num_shown,
            replica.pool(), replica.site, client_region_[static_cast<size_t>(ev.request_id)]));
      }
      rec.num_output_tokens_done += ev.num_new_output_tokens;
      timeline_.add_output_tokens(num_shown);
    }
    if (ev.finished) {
      detach(ev.request_id, replica);
      const Request& req = result_.table.requests[static_cast<size_t>(ev.request_id)];
      if (handoff_ && !decoding && handoff_->hands_off(replica.pool()) &&
          rec.num_output_tokens_done < req.output_tokens) {
        hand_off(ev.request_id, now);
      } else {
        finish(ev.request_id, now);
      }
      freed = true;
    }
  }
  start_step(replica, now);
  fleet_.stop_if_drained(index, now);
  if (freed) dispatch_held(now);
}

}  // namespace tidal::sim::detail
