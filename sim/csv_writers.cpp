// requests.csv and timeline.csv.
#include <fmt/format.h>

#include "base/csv_text.h"
#include "sim/fleet/pricing.h"
#include "sim/run_output.h"

namespace tidal::sim {
namespace {

std::string_view status_name(RequestStatus s) {
  switch (s) {
    case RequestStatus::pending:
      return "pending";
    case RequestStatus::finished:
      return "finished";
    case RequestStatus::rejected:
      return "rejected";
  }
  return "pending";
}

}  // namespace

void write_requests_csv(const Scenario& scenario, const RunResult& result, std::ostream& out) {
  fmt::memory_buffer buf;
  buf.append(std::string_view(
      "id,workload,tenant,slo_class,arrival_s,first_scheduled_s,first_token_s,finish_s,"
      "prompt_tokens,output_tokens,replica,pool,preemptions,prefix_hit_tokens,ttft_s,tpot_s,"
      "e2e_s,queue_delay_s,max_itl_s,slo_met,status,reason,region,network_s,requeues,"
      "hol_delay_s,hol_caused_s,decode_replica,decode_pool,prefill_done_s,transfer_start_s,"
      "transfer_end_s,decode_first_scheduled_s,transfer_bytes\n"));
  const auto& requests = result.table.requests;
  for (size_t i = 0; i < requests.size(); ++i) {
    const Request& q = requests[i];
    const RequestRecord& r = result.records[i];
    const RequestLatency lat = request_latency(r);
    const auto w = static_cast<size_t>(result.table.workload[i]);
    const auto c = static_cast<size_t>(result.table.slo_class[i]);
    fmt::format_to(std::back_inserter(buf), "{},", q.id);
    base::append_csv_fields(buf, {scenario.workloads[w].name, q.tenant, q.slo_class});
    buf.push_back(',');
    base::append_seconds_fields_if_set(
        buf, {r.arrival_ns, r.first_scheduled_ns, r.first_token_ns, r.finish_ns});
    fmt::format_to(std::back_inserter(buf), ",{},{},", q.prompt_tokens, q.output_tokens);
    if (r.replica >= 0) {
      fmt::format_to(std::back_inserter(buf), "{},", r.replica);
      const size_t pool = static_cast<size_t>(result.replicas[static_cast<size_t>(r.replica)].pool);
      base::append_csv_field(buf, scenario.pools[pool].name);
    } else {
      buf.push_back(',');
    }
    fmt::format_to(std::back_inserter(buf), ",{},{},", r.num_preemptions, r.num_prefix_hit_tokens);
    base::append_fixed6_fields_if_set(buf, {lat.ttft_s, lat.tpot_s, lat.e2e_s, lat.queue_delay_s});
    buf.push_back(',');
    if (r.status == RequestStatus::finished) base::append_seconds_if_set(buf, r.max_itl_ns);
    fmt::format_to(std::back_inserter(buf), ",{},{},",
                   meets_slo(r, lat, scenario.slo_classes[c].slo) ? 1 : 0, status_name(r.status));
    base::append_csv_fields(buf, {r.reason, q.region});
    fmt::format_to(std::back_inserter(buf), ",{},{},{:.6f},{:.6f},",
                   base::format_seconds(r.network_ns), r.num_requeues, r.hol_delay_s,
                   r.hol_caused_s);
    if (r.decode_replica >= 0) {
      const auto pool =
          static_cast<size_t>(result.replicas[static_cast<size_t>(r.decode_replica)].pool);
      fmt::format_to(std::back_inserter(buf), "{},", r.decode_replica);
      base::append_csv_field(buf, scenario.pools[pool].name);
    } else {
      buf.push_back(',');
    }
    buf.push_back(',');
    base::append_seconds_fields_if_set(buf, {r.prefill_done_ns, r.transfer_start_ns,
                                             r.transfer_end_ns, r.decode_first_scheduled_ns});
    buf.push_back(',');
    if (r.decode_replica >= 0) fmt::format_to(std::back_inserter(buf), "{:.0f}", r.transfer_bytes);
    buf.push_back('\n');
    base::flush_if_large(buf, out);
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

void write_timeline_csv(const RunResult& result, std::ostream& out) {
  fmt::memory_buffer buf;
  buf.append(std::string_view(
      "start_s,end_s,arrivals,finished,rejected,output_tokens,queue_depth,running,"
      "replicas_starting,replicas_warm,replicas_draining,replicas_stopped,kv_usage,utilization,"
      "dollars,cumulative_dollars,replicas_requested,replicas_provisioning,replicas_loading,"
      "queued_at_router,queue_depth_max,queue_depth_mean,running_max,running_mean,kv_usage_max,"
      "kv_usage_mean,queued_at_router_max,queued_at_router_mean,mfu,mbu,kv_transfer_bytes,"
      "kv_transfers_max,kv_transfers_mean\n"));
  for (const TimelineRow& row : result.timeline) {
    const auto& s = row.num_replicas_by_state;
    const auto count = [&](ReplicaState state) { return s[static_cast<size_t>(state)]; };
    // replicas_starting: requested + provisioning + loading (each also in its own column).
    const int32_t starting = count(ReplicaState::requested) + count(ReplicaState::provisioning) +
                             count(ReplicaState::loading);
    fmt::format_to(std::back_inserter(buf),
                   "{},{},{},{},{},{},{},{},{},{},{},{},{:.6f},{:.6f},{},{},{},{},{},{}",
                   base::format_seconds(row.start_ns), base::format_seconds(row.end_ns),
                   row.num_arrivals, row.num_finished, row.num_rejected, row.num_output_tokens,
                   row.queue_depth, row.num_running, starting, count(ReplicaState::warm),
                   count(ReplicaState::draining), count(ReplicaState::stopped), row.kv_usage,
                   row.utilization, fleet::format_dollars(row.micro_dollars),
                   fleet::format_dollars(row.cumulative_micro_dollars),
                   count(ReplicaState::requested), count(ReplicaState::provisioning),
                   count(ReplicaState::loading), row.num_queued_at_router);
    fmt::format_to(std::back_inserter(buf), ",{},{:.6f},{},{:.6f},{:.6f},{:.6f},{},{:.6f},",
                   row.max_queue_depth, row.mean_queue_depth, row.max_running, row.mean_running,
                   row.max_kv_usage, row.mean_kv_usage, row.max_queued_at_router,
                   row.mean_queued_at_router);
    base::append_fixed6_fields_if_set(buf, {row.mfu, row.mbu});
    fmt::format_to(std::back_inserter(buf), ",{:.0f},{},{:.6f}\n", row.kv_transfer_bytes,
                   row.max_kv_transfers, row.mean_kv_transfers);
    base::flush_if_large(buf, out);
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

}  // namespace tidal::sim
