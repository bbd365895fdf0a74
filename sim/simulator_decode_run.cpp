// The event loop's deferred decode runs (sim/decode_run.h): a replica's repeated decode steps
// applied to the requests' records and charges at once when the run ends, instead of one pass
// over the batch per step.
#include <algorithm>
#include <cassert>
#include <limits>
#include <span>

#include "sim/event_loop.h"
#include "sim/fleet/spec_reading.h"

namespace tidal::sim::detail {

bool Simulator::begin_decode_run(Replica& replica) {
  const sched::StepPlan& plan = replica.plan();
  const int64_t detokenize_ns =
      fleet::seconds_to_ns(cluster_.pool_of(replica.index()).detokenize_per_token_s());
  DecodeRun& run = replica.decode_run;
  int64_t num_steps_left = std::numeric_limits<int64_t>::max();
  int64_t num_itl_kept = 0;
  for (const sched::ScheduledSeq& seq : plan.seqs) {
    const auto k = static_cast<size_t>(seq.request_id);
    const RequestRecord& rec = result_.records[k];
    // Its last token came out when the step began (the gap of this step is its length).
    if (!seq.samples || seq.num_new_tokens != 1 || seq.num_spec_tokens != 0 ||
        rec.last_token_ns != replica.step_start_ns + rec.network_ns + detokenize_ns) {
      return false;
    }
    const int64_t num_left_before_last =
        result_.table.requests[k].output_tokens - rec.num_output_tokens_done - 1;
    num_steps_left = std::min({num_steps_left, num_left_before_last, charge_[k]});
    num_itl_kept += keeps_itl(seq.request_id) ? 1 : 0;
  }
  if (num_steps_left < 1) return false;
  run.request_ids.clear();
  for (const sched::ScheduledSeq& seq : plan.seqs) run.request_ids.push_back(seq.request_id);
  run.start_ns = replica.step_start_ns;
  run.end_ns = replica.step_start_ns;
  run.num_steps = 0;
  run.num_steps_left = num_steps_left;
  run.longest_step_ns = 0;
  run.num_itl_kept = num_itl_kept;
  return true;
}

bool Simulator::continue_decode_run(Replica& replica, int64_t now) {
  if (!decode_runs_ || !replica.plan_repeats() || !replica.hol_delay_s().empty()) return false;
  DecodeRun& run = replica.decode_run;
  if (!run.active() && !begin_decode_run(replica)) return false;
  if (run.num_steps_left == 0) return false;
  const auto batch = static_cast<int64_t>(replica.plan().seqs.size());
  assert(batch == static_cast<int64_t>(run.request_ids.size()));
  // What on_step_end does for the step, in its order, but for the records and charges.
  replica.num_outstanding_tokens -= batch;
  const std::span<const sched::RequestEvent> events = replica.apply_step({}, now);
  assert(std::none_of(events.begin(), events.end(), [](const sched::RequestEvent& ev) {
    return ev.finished || ev.num_new_output_tokens != 1;
  }));
  (void)events;
  const int64_t step_ns = now - run.end_ns;
  if (run.num_itl_kept > 0) result_.itl.add(static_cast<double>(step_ns) / 1e9, run.num_itl_kept);
  timeline_.add_output_tokens(batch);
  run.end_ns = now;
  run.longest_step_ns = std::max(run.longest_step_ns, step_ns);
  ++run.num_steps;
  --run.num_steps_left;
  return true;
}

void Simulator::fold_decode_run(Replica& replica) {
  DecodeRun& run = replica.decode_run;
  if (!run.active()) return;
  const int64_t shift_ns = run.end_ns - run.start_ns;
  for (const int64_t id : run.request_ids) {
    const auto k = static_cast<size_t>(id);
    RequestRecord& rec = result_.records[k];
    rec.num_output_tokens_done += run.num_steps;
    rec.last_token_ns += shift_ns;
    rec.max_itl_ns = std::max(rec.max_itl_ns, run.longest_step_ns);
    charge_[k] -= run.num_steps;
  }
  run.request_ids.clear();
}

void Simulator::fold_decode_runs() {
  for (int32_t i = 0; i < cluster_.num_replicas(); ++i) fold_decode_run(cluster_.replica(i));
}

}  // namespace tidal::sim::detail
