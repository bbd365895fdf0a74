// requests.csv and timeline.csv.
#include <fmt/format.h>

#include "base/csv_text.h"
#include "sim/fleet/pricing.h"
#include "sim/requests_csv.h"
#include "sim/run_output.h"

namespace tidal::sim {

RequestsView requests_view(const RunResult& result) {
  return RequestsView{result.table, result.records, result.handoffs, [&result](int32_t replica) {
                        return result.replicas[static_cast<size_t>(replica)].pool;
                      }};
}

void write_requests_csv(const Scenario& scenario, const RunResult& result, std::ostream& out) {
  RequestsCsvWriter writer(scenario, static_cast<int64_t>(result.records.size()), out);
  writer.finish(requests_view(result));
}

void write_timeline_csv(const RunResult& result, std::ostream& out) {
  fmt::memory_buffer buf;
  buf.append(std::string_view(
      "start_s,end_s,arrivals,finished,rejected,output_tokens,queue_depth,running,"
      "replicas_starting,replicas_warm,replicas_draining,replicas_stopped,kv_usage,utilization,"
      "dollars,cumulative_dollars,replicas_requested,replicas_provisioning,replicas_loading,"
      "queued_at_router,queue_depth_max,queue_depth_mean,running_max,running_mean,kv_usage_max,"
      "kv_usage_mean,queued_at_router_max,queued_at_router_mean,mfu,mbu,kv_transfer_bytes,"
      "kv_transfers_max,kv_transfers_mean"));
  // Only a run that prices egress has the column: other runs' files stay as they were.
  if (result.egress) buf.append(std::string_view(",egress_dollars"));
  buf.push_back('\n');
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
    fmt::format_to(std::back_inserter(buf), ",{:.0f},{},{:.6f}", row.kv_transfer_bytes,
                   row.max_kv_transfers, row.mean_kv_transfers);
    if (result.egress) fmt::format_to(std::back_inserter(buf), ",{:.6f}", row.egress_dollars);
    buf.push_back('\n');
    base::flush_if_large(buf, out);
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

}  // namespace tidal::sim
