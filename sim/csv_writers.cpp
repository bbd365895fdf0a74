// requests.csv and timeline.csv.
#include <fmt/format.h>

#include "sim/fleet/pricing.h"
#include "sim/run_output.h"

namespace tidal::sim {
namespace {

// A CSV field: quoted (with doubled quotes) when it holds a comma, quote or line break.
void append_field(fmt::memory_buffer& buf, std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) {
    buf.append(text);
    return;
  }
  buf.push_back('"');
  for (char c : text) {
    if (c == '"') buf.push_back('"');
    buf.push_back(c);
  }
  buf.push_back('"');
}

void append_time(fmt::memory_buffer& buf, int64_t ns) {
  if (ns >= 0) buf.append(format_seconds(ns));
}

void append_optional(fmt::memory_buffer& buf, const std::optional<double>& v) {
  if (v) fmt::format_to(std::back_inserter(buf), "{:.6f}", *v);
}

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

std::string format_seconds(int64_t ns) {
  const bool negative = ns < 0;
  const int64_t magnitude = negative ? -ns : ns;
  const int64_t us = (magnitude + 500) / 1000;
  return fmt::format("{}{}.{:06}", negative ? "-" : "", us / 1'000'000, us % 1'000'000);
}

void write_requests_csv(const Scenario& scenario, const RunResult& result, std::ostream& out) {
  fmt::memory_buffer buf;
  buf.append(std::string_view(
      "id,workload,tenant,slo_class,arrival_s,first_scheduled_s,first_token_s,finish_s,"
      "prompt_tokens,output_tokens,replica,pool,preemptions,prefix_hit_tokens,ttft_s,tpot_s,"
      "e2e_s,queue_delay_s,max_itl_s,slo_met,status,reason,region,network_s,requeues,"
      "hol_delay_s,hol_caused_s\n"));
  const auto& requests = result.table.requests;
  for (size_t i = 0; i < requests.size(); ++i) {
    const Request& q = requests[i];
    const RequestRecord& r = result.records[i];
    const RequestLatency lat = request_latency(r);
    const auto w = static_cast<size_t>(result.table.workload[i]);
    const auto c = static_cast<size_t>(result.table.slo_class[i]);
    fmt::format_to(std::back_inserter(buf), "{},", q.id);
    append_field(buf, scenario.workloads[w].name);
    buf.push_back(',');
    append_field(buf, q.tenant);
    buf.push_back(',');
    append_field(buf, q.slo_class);
    buf.push_back(',');
    append_time(buf, r.arrival_ns);
    buf.push_back(',');
    append_time(buf, r.first_scheduled_ns);
    buf.push_back(',');
    append_time(buf, r.first_token_ns);
    buf.push_back(',');
    append_time(buf, r.finish_ns);
    fmt::format_to(std::back_inserter(buf), ",{},{},", q.prompt_tokens, q.output_tokens);
    if (r.replica >= 0) {
      fmt::format_to(std::back_inserter(buf), "{},", r.replica);
      const size_t pool = static_cast<size_t>(result.replicas[static_cast<size_t>(r.replica)].pool);
      append_field(buf, scenario.pools[pool].name);
    } else {
      buf.push_back(',');
    }
    fmt::format_to(std::back_inserter(buf), ",{},{},", r.num_preemptions, r.num_prefix_hit_tokens);
    append_optional(buf, lat.ttft_s);
    buf.push_back(',');
    append_optional(buf, lat.tpot_s);
    buf.push_back(',');
    append_optional(buf, lat.e2e_s);
    buf.push_back(',');
    append_optional(buf, lat.queue_delay_s);
    buf.push_back(',');
    if (r.status == RequestStatus::finished) append_time(buf, r.max_itl_ns);
    fmt::format_to(std::back_inserter(buf), ",{},{},",
                   meets_slo(r, lat, scenario.slo_classes[c].slo) ? 1 : 0, status_name(r.status));
    append_field(buf, r.reason);
    buf.push_back(',');
    append_field(buf, q.region);
    fmt::format_to(std::back_inserter(buf), ",{},{},{:.6f},{:.6f}\n", format_seconds(r.network_ns),
                   r.num_requeues, r.hol_delay_s, r.hol_caused_s);
    if (buf.size() > (1 << 20)) {
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

void write_timeline_csv(const RunResult& result, std::ostream& out) {
  fmt::memory_buffer buf;
  buf.append(std::string_view(
      "start_s,end_s,arrivals,finished,rejected,output_tokens,queue_depth,running,"
      "replicas_starting,replicas_warm,replicas_draining,replicas_stopped,kv_usage,utilization,"
      "dollars,cumulative_dollars,replicas_requested,replicas_provisioning,replicas_loading,"
      "queued_at_router\n"));
  for (const TimelineRow& row : result.timeline) {
    const auto& s = row.num_replicas_by_state;
    const auto count = [&](ReplicaState state) { return s[static_cast<size_t>(state)]; };
    // replicas_starting: requested + provisioning + loading (each also in its own column).
    const int32_t starting = count(ReplicaState::requested) + count(ReplicaState::provisioning) +
                             count(ReplicaState::loading);
    fmt::format_to(std::back_inserter(buf),
                   "{},{},{},{},{},{},{},{},{},{},{},{},{:.6f},{:.6f},{},{},{},{},{},{}\n",
                   format_seconds(row.start_ns), format_seconds(row.end_ns), row.num_arrivals,
                   row.num_finished, row.num_rejected, row.num_output_tokens, row.queue_depth,
                   row.num_running, starting, count(ReplicaState::warm),
                   count(ReplicaState::draining), count(ReplicaState::stopped), row.kv_usage,
                   row.utilization, fleet::format_dollars(row.micro_dollars),
                   fleet::format_dollars(row.cumulative_micro_dollars),
                   count(ReplicaState::requested), count(ReplicaState::provisioning),
                   count(ReplicaState::loading), row.num_queued_at_router);
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

}  // namespace tidal::sim
