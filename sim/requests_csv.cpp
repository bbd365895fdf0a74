#include "sim/requests_csv.h"

#include "base/csv_text.h"
#include "sim/metrics.h"

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

RequestsCsvWriter::RequestsCsvWriter(const Scenario& scenario, int64_t num_requests,
                                     std::ostream& out)
    : scenario_(scenario), out_(out), ended_(static_cast<size_t>(num_requests), false) {
  buf_.append(std::string_view(
      "id,workload,tenant,slo_class,arrival_s,first_scheduled_s,first_token_s,finish_s,"
      "prompt_tokens,output_tokens,replica,pool,preemptions,prefix_hit_tokens,ttft_s,tpot_s,"
      "e2e_s,queue_delay_s,max_itl_s,slo_met,status,reason,region,network_s,requeues,"
      "hol_delay_s,hol_caused_s,decode_replica,decode_pool,prefill_done_s,transfer_start_s,"
      "transfer_end_s,decode_first_scheduled_s,transfer_bytes\n"));
}

void RequestsCsvWriter::add_ended(std::span<const int64_t> ended, const RequestsView& requests) {
  for (const int64_t id : ended) ended_[static_cast<size_t>(id)] = true;
  const auto n = static_cast<int64_t>(ended_.size());
  while (next_ < n && ended_[static_cast<size_t>(next_)]) {
    write_row(static_cast<size_t>(next_), requests);
    ++next_;
    base::flush_if_large(buf_, out_);
  }
}

void RequestsCsvWriter::finish(const RequestsView& requests) {
  for (const auto n = static_cast<int64_t>(ended_.size()); next_ < n; ++next_) {
    write_row(static_cast<size_t>(next_), requests);
    base::flush_if_large(buf_, out_);
  }
  out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
  buf_.clear();
  out_.flush();
}

void RequestsCsvWriter::write_row(size_t i, const RequestsView& requests) {
  ended_[i] = false;
  const Request& q = requests.table.requests[i];
  const RequestRecord& r = requests.records[i];
  const RequestLatency lat = request_latency(r);
  const auto w = static_cast<size_t>(requests.table.workload[i]);
  const auto c = static_cast<size_t>(requests.table.slo_class[i]);
  const auto pool_name = [&](int32_t replica) -> const std::string& {
    return scenario_.pools[static_cast<size_t>(requests.pool_of_replica(replica))].name;
  };
  fmt::format_to(std::back_inserter(buf_), "{},", q.id);
  base::append_csv_fields(buf_, {scenario_.workloads[w].name, q.tenant, q.slo_class});
  buf_.push_back(',');
  base::append_seconds_fields_if_set(
      buf_, {r.arrival_ns, r.first_scheduled_ns, r.first_token_ns, r.finish_ns});
  fmt::format_to(std::back_inserter(buf_), ",{},{},", q.prompt_tokens, q.output_tokens);
  if (r.replica >= 0) {
    fmt::format_to(std::back_inserter(buf_), "{},", r.replica);
    base::append_csv_field(buf_, pool_name(r.replica));
  } else {
    buf_.push_back(',');
  }
  fmt::format_to(std::back_inserter(buf_), ",{},{},", r.num_preemptions, r.num_prefix_hit_tokens);
  base::append_fixed6_fields_if_set(buf_, {lat.ttft_s, lat.tpot_s, lat.e2e_s, lat.queue_delay_s});
  buf_.push_back(',');
  if (r.status == RequestStatus::finished) base::append_seconds_if_set(buf_, r.max_itl_ns);
  fmt::format_to(std::back_inserter(buf_), ",{},{},",
                 meets_slo(r, lat, scenario_.slo_classes[c].slo) ? 1 : 0, status_name(r.status));
  base::append_csv_fields(buf_, {r.reason, q.region});
  fmt::format_to(std::back_inserter(buf_), ",{},{},{:.6f},{:.6f},",
                 base::format_seconds(r.network_ns), r.num_requeues, r.hol_delay_s, r.hol_caused_s);
  static const HandoffRecord kNoHandoff;
  const HandoffRecord& h = requests.handoffs.empty() ? kNoHandoff : requests.handoffs[i];
  if (h.decode_replica >= 0) {
    fmt::format_to(std::back_inserter(buf_), "{},", h.decode_replica);
    base::append_csv_field(buf_, pool_name(h.decode_replica));
  } else {
    buf_.push_back(',');
  }
  buf_.push_back(',');
  base::append_seconds_fields_if_set(buf_, {h.prefill_done_ns, h.transfer_start_ns,
                                            h.transfer_end_ns, h.decode_first_scheduled_ns});
  buf_.push_back(',');
  if (h.decode_replica >= 0) fmt::format_to(std::back_inserter(buf_), "{:.0f}", h.transfer_bytes);
  buf_.push_back('\n');
}

}  // namespace tidal::sim
