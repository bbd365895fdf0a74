#include "ui/live_run.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "sim/metrics.h"
#include "sim/replica_state.h"

namespace tidal::ui {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<std::string> sorted_distinct(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

int32_t index_of(const std::vector<std::string>& sorted, const std::string& name) {
  return static_cast<int32_t>(std::lower_bound(sorted.begin(), sorted.end(), name) -
                              sorted.begin());
}

double seconds(int64_t ns) {
  return static_cast<double>(ns) / 1e9;
}

double or_nan(const std::optional<double>& v) {
  return v ? *v : kNaN;
}

reports::TimelineRows timeline_rows(const std::vector<sim::TimelineRow>& rows) {
  reports::TimelineRows t;
  for (int s = 0; s < sim::kNumReplicaStates; ++s) {
    t.replicas_by_state.push_back(
        {std::string(sim::replica_state_name(static_cast<sim::ReplicaState>(s))), {}});
  }
  for (const sim::TimelineRow& row : rows) {
    t.start_s.push_back(seconds(row.start_ns));
    t.end_s.push_back(seconds(row.end_ns));
    t.arrivals.push_back(static_cast<double>(row.num_arrivals));
    t.finished.push_back(static_cast<double>(row.num_finished));
    t.rejected.push_back(static_cast<double>(row.num_rejected));
    t.output_tokens.push_back(static_cast<double>(row.num_output_tokens));
    t.queue_depth.push_back(static_cast<double>(row.queue_depth));
    t.running.push_back(static_cast<double>(row.num_running));
    t.kv_usage.push_back(row.kv_usage);
    t.utilization.push_back(row.utilization);
    t.dollars.push_back(0.0);
    t.cumulative_dollars.push_back(0.0);
    t.queued_at_router.push_back(static_cast<double>(row.num_queued_at_router));
    for (size_t s = 0; s < row.num_replicas_by_state.size(); ++s) {
      t.replicas_by_state[s].values.push_back(row.num_replicas_by_state[s]);
    }
  }
  return t;
}

reports::RequestRows request_rows(const LiveRows& live) {
  reports::RequestRows r;
  r.tenant_names = live.tenant_names;
  r.class_names = live.class_names;
  for (const LiveRequest& q : live.requests) {
    r.tenant.push_back(q.tenant);
    r.slo_class.push_back(q.slo_class);
    r.arrival_s.push_back(q.arrival_s);
    r.prompt_tokens.push_back(q.prompt_tokens);
    r.output_tokens.push_back(q.output_tokens);
    r.ttft_s.push_back(q.ttft_s);
    r.tpot_s.push_back(q.tpot_s);
    r.e2e_s.push_back(q.e2e_s);
    r.queue_delay_s.push_back(q.queue_delay_s);
    r.finished.push_back(q.finished ? 1 : 0);
    r.slo_met.push_back(q.slo_met ? 1 : 0);
  }
  return r;
}

}  // namespace

LiveRows live_rows_for(const sim::RequestTable& table) {
  LiveRows rows;
  std::vector<std::string> tenants, classes;  // [num_requests]
  tenants.reserve(table.requests.size());
  classes.reserve(table.requests.size());
  for (const Request& q : table.requests) {
    tenants.push_back(q.tenant);
    classes.push_back(q.slo_class);
  }
  rows.tenant_names = sorted_distinct(std::move(tenants));
  rows.class_names = sorted_distinct(std::move(classes));
  rows.num_requests = static_cast<int64_t>(table.requests.size());
  return rows;
}

void append_report(const sim::Scenario& scenario, const sim::ProgressReport& report,
                   LiveRows& rows) {
  rows.timeline.insert(rows.timeline.end(), report.new_rows.begin(), report.new_rows.end());
  for (const int64_t id : report.newly_done) {
    const auto k = static_cast<size_t>(id);
    const Request& q = report.table->requests[k];
    const sim::RequestRecord& rec = report.records[k];
    const sim::RequestLatency lat = sim::request_latency(rec);
    const auto c = static_cast<size_t>(report.table->slo_class[k]);
    LiveRequest live;
    live.tenant = index_of(rows.tenant_names, q.tenant);
    live.slo_class = index_of(rows.class_names, q.slo_class);
    live.arrival_s = seconds(rec.arrival_ns);
    live.prompt_tokens = static_cast<double>(q.prompt_tokens);
    live.output_tokens = static_cast<double>(q.output_tokens);
    live.ttft_s = or_nan(lat.ttft_s);
    live.tpot_s = or_nan(lat.tpot_s);
    live.e2e_s = or_nan(lat.e2e_s);
    live.queue_delay_s = or_nan(lat.queue_delay_s);
    live.finished = rec.status == sim::RequestStatus::finished;
    live.slo_met = sim::meets_slo(rec, lat, scenario.slo_classes[c].slo);
    rows.requests.push_back(live);
  }
}

void append_new_rows(const LiveRows& from, LiveRows& into) {
  into.tenant_names = from.tenant_names;
  into.class_names = from.class_names;
  into.num_requests = from.num_requests;
  const auto tail = [](const auto& source, auto& target) {
    const size_t have = std::min(target.size(), source.size());
    target.insert(target.end(), source.begin() + static_cast<std::ptrdiff_t>(have), source.end());
  };
  tail(from.timeline, into.timeline);
  tail(from.requests, into.requests);
}

std::shared_ptr<const LoadedRun> make_live_run(const LiveRows& rows, std::string dir,
                                               std::string label, std::string scenario_name) {
  auto run = std::make_shared<LoadedRun>();
  run->dir = std::move(dir);
  run->label = std::move(label);
  run->partial = true;
  run->data.timeline = timeline_rows(rows.timeline);
  run->data.requests = request_rows(rows);
  reports::RunSummary& summary = run->data.summary;
  summary.scenario_name = std::move(scenario_name);
  summary.num_requests = rows.num_requests;
  for (const LiveRequest& q : rows.requests) {
    if (q.finished) {
      ++summary.num_finished;
    } else {
      ++summary.num_rejected;
    }
  }
  summary.duration_s = rows.timeline.empty() ? 0.0 : seconds(rows.timeline.back().end_ns);
  run->series = derive_series(run->data);
  return run;
}

}  // namespace tidal::ui
