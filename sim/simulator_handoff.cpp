// The event loop's disaggregated serving: a prefilled request's KV moves to a decode replica
// (docs/fleet.md, "Disaggregated prefill and decode"; where it goes and how many bytes:
// sim/kv_handoff.h).
#include <deque>

#include "sim/event_loop.h"
#include "sim/fleet/spec_reading.h"

namespace tidal::sim::detail {

void Simulator::hand_off(int64_t request, int64_t now) {
  const auto k = static_cast<size_t>(request);
  result_.handoffs[k].prefill_done_ns = now;
  prefill_preemptions_[k] = result_.records[k].num_preemptions;
  handoff_->waiting().push_back(request);
  dispatch_waiting_decode(now);
}

void Simulator::dispatch_waiting_decode(int64_t now) {
  std::deque<int64_t>& waiting = handoff_->waiting();
  bool started = false;
  while (!waiting.empty()) {
    const int64_t request = waiting.front();
    const auto k = static_cast<size_t>(request);
    RequestRecord& rec = result_.records[k];
    const Request& req = result_.table.requests[k];
    const Replica& prefill = cluster_.replica(rec.replica);
    const int32_t target = handoff_->choose_decode(req, prefill.pool(), cluster_);
    if (target < 0) break;
    waiting.pop_front();
    Replica& decode = cluster_.replica(target);
    // Every known token but the last has its KV computed.
    const int64_t num_tokens = req.prompt_tokens + rec.num_output_tokens_done - 1;
    const int32_t link = handoff_->link_of(prefill.pool(), decode.pool());
    HandoffRecord& handoff = result_.handoffs[k];
    handoff.decode_replica = target;
    handoff.transfer_start_ns = now;
    handoff.transfer_bytes = handoff_->kv_bytes(decode.pool(), num_tokens);
    if (client_region_[k] >= 0) {
      rec.network_ns = fleet::seconds_to_ns(
          cluster_.network()->latency_s(client_region_[k], decode.site).value_or(0.0));
    }
    decoding_[k] = 1;
    book(request, decode, req.output_tokens - rec.num_output_tokens_done);
    handoff_->transfers().start(now, request, link, prefill.index(),
                                cluster_.pool_of(prefill.index()).deployment.num_gpus(), target,
                                cluster_.pool_of(target).deployment.num_gpus(),
                                handoff.transfer_bytes);
    started = true;
  }
  if (started) {
    timeline_.set_kv_transfers(handoff_->transfers().num_active());
    schedule_kv_transfer_event();
  }
}

void Simulator::on_kv_transfer(int64_t now) {
  if (now == kv_transfer_event_ns_) kv_transfer_event_ns_ = fleet::KvTransfers::kNever;
  for (const fleet::KvTransfers::Done& done : handoff_->transfers().take_done(now)) {
    const RequestRecord& rec = result_.records[static_cast<size_t>(done.request)];
    HandoffRecord& handoff = result_.handoffs[static_cast<size_t>(done.request)];
    const int64_t latency_ns = handoff_->latency_ns(done.link);
    handoff.transfer_end_ns = now + latency_ns;
    timeline_.add_kv_transfer_bytes(done.bytes);
    if (egress_) {
      timeline_.add_egress_dollars(
          egress_->add_kv(done.bytes, cluster_.replica(rec.replica).pool(), done.link));
    }
    if (latency_ns > 0) {
      queue_.push(now + latency_ns, EventKind::deliver, handoff.decode_replica, done.request);
    } else {
      deliver(done.request, handoff.decode_replica, now);
    }
  }
  timeline_.set_kv_transfers(handoff_->transfers().num_active());
  schedule_kv_transfer_event();
}

void Simulator::schedule_kv_transfer_event() {
  const int64_t next = handoff_->transfers().next_done_ns();
  if (next >= kv_transfer_event_ns_) return;
  kv_transfer_event_ns_ = next;
  schedule_event(next, EventKind::kv_transfer, -1, -1);
}

}  // namespace tidal::sim::detail
