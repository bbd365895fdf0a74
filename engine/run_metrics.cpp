#include "engine/run_metrics.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace tidal::engine {

namespace {

double seconds(int64_t ns) {
  return static_cast<double>(ns) * 1e-9;
}

double share(int64_t part, int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace

const char* request_status_name(RequestStatus status) {
  switch (status) {
    case RequestStatus::pending:
      return "pending";
    case RequestStatus::finished:
      return "finished";
    case RequestStatus::rejected:
      return "rejected";
  }
  return "pending";
}

RequestLatency request_latency(const RequestRecord& r) {
  RequestLatency lat;
  if (r.first_scheduled_ns >= 0) lat.queue_delay_s = seconds(r.first_scheduled_ns - r.arrival_ns);
  if (r.status != RequestStatus::finished) return lat;
  lat.ttft_s = seconds(r.first_token_ns - r.arrival_ns);
  lat.e2e_s = seconds(r.finish_ns - r.arrival_ns);
  if (r.num_output_tokens_done > 1) {
    lat.tpot_s =
        seconds(r.finish_ns - r.first_token_ns) / static_cast<double>(r.num_output_tokens_done - 1);
  }
  return lat;
}

LatencySummary summarize(std::vector<double> samples) {
  LatencySummary s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.count = static_cast<int64_t>(samples.size());
  double total = 0.0;
  for (double x : samples) total += x;
  s.mean = total / static_cast<double>(s.count);
  const auto nearest_rank = [&](double p) {
    return samples[static_cast<size_t>(traces::nearest_rank_position(p, s.count) - 1)];
  };
  s.p50 = nearest_rank(50.0);
  s.p90 = nearest_rank(90.0);
  s.p99 = nearest_rank(99.0);
  s.max = samples.back();
  return s;
}

RunMetrics compute_metrics(const std::vector<RequestRecord>& records,
                           const std::vector<Request>& requests, std::vector<double> itl_s,
                           int64_t busy_ns, int64_t end_ns) {
  RunMetrics m;
  m.duration_s = seconds(end_ns);
  m.num_requests = static_cast<int64_t>(records.size());
  std::vector<double> ttft, tpot, e2e, queue_delay;
  std::map<std::string, int64_t> rejections;
  for (size_t i = 0; i < records.size(); ++i) {
    const RequestRecord& r = records[i];
    m.num_preemptions += r.num_preemptions;
    m.num_prefix_hit_tokens += r.num_prefix_hit_tokens;
    if (r.status == RequestStatus::rejected) {
      ++m.num_rejected;
      ++rejections[r.reason];
      continue;
    }
    if (r.status != RequestStatus::finished) continue;
    ++m.num_finished;
    m.num_input_tokens += requests[i].prompt_tokens;
    m.num_output_tokens += r.num_output_tokens_done;
    const RequestLatency lat = request_latency(r);
    ttft.push_back(*lat.ttft_s);
    e2e.push_back(*lat.e2e_s);
    if (lat.queue_delay_s) queue_delay.push_back(*lat.queue_delay_s);
    if (lat.tpot_s) tpot.push_back(*lat.tpot_s);
  }
  m.ttft = summarize(std::move(ttft));
  m.tpot = summarize(std::move(tpot));
  m.itl = summarize(std::move(itl_s));
  m.e2e = summarize(std::move(e2e));
  m.queue_delay = summarize(std::move(queue_delay));
  if (m.duration_s > 0.0) {
    m.request_throughput_rps = static_cast<double>(m.num_finished) / m.duration_s;
    m.input_tokens_per_s = static_cast<double>(m.num_input_tokens) / m.duration_s;
    m.output_tokens_per_s = static_cast<double>(m.num_output_tokens) / m.duration_s;
  }
  m.utilization = share(busy_ns, end_ns);
  m.rejections.assign(rejections.begin(), rejections.end());
  return m;
}

std::vector<TimelineRow> compute_timeline(const std::vector<RequestRecord>& records,
                                          const std::vector<StepRecord>& steps,
                                          const std::vector<StateSample>& states,
                                          int64_t interval_ns, int64_t end_ns) {
  if (end_ns <= 0) return {};  // a run that ended at t = 0 has no interval (as the simulator)
  // Files print microseconds: the last row ends on the next whole one, never where it starts.
  end_ns = (end_ns + 999) / 1000 * 1000;
  const int64_t num_rows = (end_ns + interval_ns - 1) / interval_ns;
  std::vector<TimelineRow> rows(static_cast<size_t>(num_rows));
  for (int64_t i = 0; i < num_rows; ++i) {
    rows[static_cast<size_t>(i)].start_ns = i * interval_ns;
    rows[static_cast<size_t>(i)].end_ns = std::min((i + 1) * interval_ns, end_ns);
  }
  const auto row_of = [&](int64_t t) -> TimelineRow& {
    return rows[static_cast<size_t>(std::clamp<int64_t>(t / interval_ns, 0, num_rows - 1))];
  };
  for (const RequestRecord& r : records) {
    if (r.status == RequestStatus::pending) continue;
    ++row_of(r.arrival_ns).num_arrivals;
    if (r.status == RequestStatus::finished) ++row_of(r.finish_ns).num_finished;
    if (r.status == RequestStatus::rejected) ++row_of(r.rejected_ns).num_rejected;
  }
  for (const StepRecord& step : steps) {
    for (const sched::RequestEvent& e : step.events) {
      row_of(step.end_ns).num_output_tokens += e.num_new_output_tokens;
    }
    // Busy time, split over the intervals the step spans.
    for (int64_t t = step.start_ns; t < step.end_ns;) {
      TimelineRow& row = row_of(t);
      const int64_t until = std::min(step.end_ns, (t / interval_ns + 1) * interval_ns);
      row.utilization += static_cast<double>(until - t);
      t = until;
    }
  }
  size_t next_state = 0;
  StateSample state;
  for (TimelineRow& row : rows) {
    row.utilization /= static_cast<double>(std::max<int64_t>(1, row.end_ns - row.start_ns));
    while (next_state < states.size() && states[next_state].time_ns <= row.end_ns) {
      state = states[next_state++];
    }
    row.queue_depth = state.num_waiting;
    row.num_running = state.num_running;
    row.kv_usage = state.kv_usage;
  }
  return rows;
}

}  // namespace tidal::engine
