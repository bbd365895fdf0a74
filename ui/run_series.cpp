#include "ui/run_series.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tidal::ui {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The interval holding time t (the last one starting at or before it); -1 before the first.
int64_t interval_of(const std::vector<double>& start_s, double t) {
  const auto it = std::upper_bound(start_s.begin(), start_s.end(), t);
  return static_cast<int64_t>(it - start_s.begin()) - 1;
}

std::vector<double> rates(const std::vector<double>& counts, const RunSeries& s) {
  std::vector<double> out(counts.size(), 0.0);  // [num_intervals]
  for (size_t i = 0; i < counts.size(); ++i) {
    const double length = s.end_s[i] - s.start_s[i];
    out[i] = length > 0.0 ? counts[i] / length : 0.0;
  }
  return out;
}

PercentileSeries percentiles_by_arrival(const reports::RequestRows& rows,
                                        const std::vector<double>& latency,
                                        const std::vector<double>& start_s) {
  std::vector<std::vector<double>> buckets(start_s.size());  // [num_intervals][samples]
  for (size_t r = 0; r < rows.size(); ++r) {
    if (std::isnan(latency[r])) continue;
    const int64_t i = interval_of(start_s, rows.arrival_s[r]);
    if (i >= 0) buckets[static_cast<size_t>(i)].push_back(latency[r]);
  }
  PercentileSeries out;
  for (std::vector<double>& b : buckets) {
    std::sort(b.begin(), b.end());
    out.p50.push_back(b.empty() ? kNaN : nearest_rank(b, 50.0));
    out.p90.push_back(b.empty() ? kNaN : nearest_rank(b, 90.0));
    out.p99.push_back(b.empty() ? kNaN : nearest_rank(b, 99.0));
  }
  return out;
}

Cdf make_cdf(const std::vector<double>& latency) {
  Cdf cdf;
  for (const double v : latency) {
    if (!std::isnan(v)) cdf.x.push_back(v);
  }
  std::sort(cdf.x.begin(), cdf.x.end());
  const double n = static_cast<double>(cdf.x.size());
  for (size_t i = 0; i < cdf.x.size(); ++i) cdf.y.push_back(static_cast<double>(i + 1) / n);
  return cdf;
}

double percentile_or_nan(std::vector<double>& samples, double p) {
  if (samples.empty()) return kNaN;
  std::sort(samples.begin(), samples.end());
  return nearest_rank(samples, p);
}

std::vector<TenantFigures> tenant_figures(const reports::RequestRows& rows, RunSeries& s) {
  const size_t num_tenants = rows.tenant_names.size();
  std::vector<TenantFigures> out(num_tenants);
  std::vector<std::vector<double>> ttft(num_tenants), tpot(num_tenants), e2e(num_tenants);
  std::vector<std::vector<double>> arrivals(num_tenants,
                                            std::vector<double>(s.start_s.size(), 0.0));
  std::vector<int64_t> num_slo_met(num_tenants, 0);
  for (size_t r = 0; r < rows.size(); ++r) {
    const auto t = static_cast<size_t>(rows.tenant[r]);
    TenantFigures& f = out[t];
    ++f.num_requests;
    if (rows.finished[r] != 0) {
      ++f.num_finished;
      f.input_tokens += rows.prompt_tokens[r];
      f.output_tokens += rows.output_tokens[r];
    }
    if (rows.slo_met[r] != 0) ++num_slo_met[t];
    if (!std::isnan(rows.ttft_s[r])) ttft[t].push_back(rows.ttft_s[r]);
    if (!std::isnan(rows.tpot_s[r])) tpot[t].push_back(rows.tpot_s[r]);
    if (!std::isnan(rows.e2e_s[r])) e2e[t].push_back(rows.e2e_s[r]);
    const int64_t i = interval_of(s.start_s, rows.arrival_s[r]);
    if (i >= 0) arrivals[t][static_cast<size_t>(i)] += 1.0;
  }
  for (size_t t = 0; t < num_tenants; ++t) {
    TenantFigures& f = out[t];
    f.name = rows.tenant_names[t];
    f.num_rejected = f.num_requests - f.num_finished;
    f.slo_attainment = f.num_requests > 0 ? static_cast<double>(num_slo_met[t]) /
                                                static_cast<double>(f.num_requests)
                                          : 0.0;
    f.ttft_p50_s = percentile_or_nan(ttft[t], 50.0);
    f.ttft_p99_s = percentile_or_nan(ttft[t], 99.0);
    f.tpot_p50_s = percentile_or_nan(tpot[t], 50.0);
    f.e2e_p99_s = percentile_or_nan(e2e[t], 99.0);
    f.peak_to_mean = peak_to_mean(arrivals[t]);
    s.tenant_arrival_rate.push_back({f.name, rates(arrivals[t], s)});
  }
  return out;
}

// Cumulative dollars over cumulative tokens of the requests finished by each interval's end.
std::vector<double> cost_per_token(const reports::RequestRows& rows, const RunSeries& s) {
  std::vector<double> tokens(s.start_s.size(), 0.0);  // [num_intervals] finished in interval
  for (size_t r = 0; r < rows.size(); ++r) {
    if (rows.finished[r] == 0) continue;
    const int64_t i = interval_of(s.start_s, rows.arrival_s[r] + rows.e2e_s[r]);
    if (i >= 0) tokens[static_cast<size_t>(i)] += rows.prompt_tokens[r] + rows.output_tokens[r];
  }
  std::vector<double> out(tokens.size(), kNaN);
  double total = 0.0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    total += tokens[i];
    if (total > 0.0) out[i] = s.cumulative_dollars[i] / total * 1e6;
  }
  return out;
}

}  // namespace

double nearest_rank(const std::vector<double>& sorted, double p) {
  const double n = static_cast<double>(sorted.size());
  const auto k = static_cast<size_t>(std::max(1.0, std::ceil(p / 100.0 * n - 1e-9)));
  return sorted[std::min(k, sorted.size()) - 1];
}

double peak_to_mean(const std::vector<double>& values) {
  if (values.empty()) return 0.0;
  double sum = 0.0;
  double peak = 0.0;
  for (const double v : values) {
    sum += v;
    peak = std::max(peak, v);
  }
  const double mean = sum / static_cast<double>(values.size());
  return mean > 0.0 ? peak / mean : 0.0;
}

RunSeries derive_series(const reports::RunData& run) {
  const reports::TimelineRows& tl = run.timeline;
  const reports::RequestRows& rows = run.requests;
  RunSeries s;
  s.start_s = tl.start_s;
  s.end_s = tl.end_s;
  for (size_t i = 0; i < tl.size(); ++i) s.mid_s.push_back(0.5 * (s.start_s[i] + s.end_s[i]));
  s.arrival_rate = rates(tl.arrivals, s);
  double num_arrivals = 0.0;
  for (const double a : tl.arrivals) num_arrivals += a;
  const double span = tl.size() > 0 ? tl.end_s.back() - tl.start_s.front() : 0.0;
  s.mean_arrival_rate = span > 0.0 ? num_arrivals / span : 0.0;
  for (const double r : s.arrival_rate) s.peak_arrival_rate = std::max(s.peak_arrival_rate, r);
  s.peak_to_mean = s.mean_arrival_rate > 0.0 ? s.peak_arrival_rate / s.mean_arrival_rate : 0.0;
  s.output_tokens_per_s = rates(tl.output_tokens, s);
  s.queue_depth = tl.queue_depth;
  s.running = tl.running;
  s.kv_usage = tl.kv_usage;
  s.utilization = tl.utilization;
  s.queued_at_router = tl.queued_at_router;
  for (const reports::NamedSeries* state : reports::distinct_replica_states(tl)) {
    s.replicas_by_state.push_back({state->name, state->values});
  }
  s.cumulative_dollars = tl.cumulative_dollars;
  s.dollars_per_1m_tokens = cost_per_token(rows, s);
  s.ttft = percentiles_by_arrival(rows, rows.ttft_s, s.start_s);
  s.tpot = percentiles_by_arrival(rows, rows.tpot_s, s.start_s);
  s.e2e = percentiles_by_arrival(rows, rows.e2e_s, s.start_s);
  s.ttft_cdf = make_cdf(rows.ttft_s);
  s.tpot_cdf = make_cdf(rows.tpot_s);
  s.e2e_cdf = make_cdf(rows.e2e_s);
  s.tenants = tenant_figures(rows, s);
  return s;
}

}  // namespace tidal::ui
