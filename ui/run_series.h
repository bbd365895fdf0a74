// What the dashboard plots for one run, derived once from its run folder (reports::RunData):
// per-interval series from timeline.csv, latency percentiles per arrival interval, CDFs and
// per-tenant figures from requests.csv, and cumulative cost per token.
#pragma once

#include <string>
#include <vector>

#include "reports/run_data.h"

namespace tidal::ui {

struct PercentileSeries {
  std::vector<double> p50, p90, p99;  // [num_intervals] NaN where no request arrived
};

// An empirical CDF: y[i] = (i + 1) / n at the i-th smallest sample.
struct Cdf {
  std::vector<double> x;  // [n] ascending samples
  std::vector<double> y;  // [n] share of samples <= x
};

struct TenantFigures {
  std::string name;
  int64_t num_requests = 0;
  int64_t num_finished = 0;
  int64_t num_rejected = 0;     // not finished (a run ends when every request finished or
                                // was rejected)
  double slo_attainment = 0.0;  // SLO met over requests
  double ttft_p50_s = 0.0, ttft_p99_s = 0.0;  // NaN when nothing finished
  double tpot_p50_s = 0.0;
  double e2e_p99_s = 0.0;
  double input_tokens = 0.0;   // prompt tokens of finished requests
  double output_tokens = 0.0;  // output tokens of finished requests
  double peak_to_mean = 0.0;   // of its arrivals per interval; 0 when it has none
};

struct NamedValues {
  std::string name;
  std::vector<double> values;  // [num_intervals]
};

struct RunSeries {
  std::vector<double> start_s, end_s, mid_s;  // [num_intervals]
  std::vector<double> arrival_rate;           // [num_intervals] req/s
  double mean_arrival_rate = 0.0;             // arrivals over the whole run's time
  double peak_arrival_rate = 0.0;
  double peak_to_mean = 0.0;                     // peak / mean; 0 without arrivals
  std::vector<NamedValues> tenant_arrival_rate;  // per tenant [num_intervals] req/s
  std::vector<double> output_tokens_per_s;       // [num_intervals]
  std::vector<double> queue_depth, running;      // [num_intervals] at the interval's end
  std::vector<double> queued_at_router;          // [num_intervals] held at the router, if any
  std::vector<double> kv_usage, utilization;     // [num_intervals] shares
  // Non-overlapping lifecycle states (reports::distinct_replica_states), lifecycle order.
  std::vector<NamedValues> replicas_by_state;
  std::vector<double> cumulative_dollars;  // [num_intervals]
  // Dollars so far over tokens (input + output) of requests finished so far, per million;
  // NaN until the first request finishes.
  std::vector<double> dollars_per_1m_tokens;  // [num_intervals]
  PercentileSeries ttft, tpot, e2e;           // by the interval of arrival
  Cdf ttft_cdf, tpot_cdf, e2e_cdf;            // finished requests
  std::vector<TenantFigures> tenants;         // sorted by name
};

RunSeries derive_series(const reports::RunData& run);

// Nearest-rank percentile (sim/sample_set.h's definition) of `sorted` (ascending, non-empty).
double nearest_rank(const std::vector<double>& sorted, double p);

// max / mean of `values` (0 when the mean is 0).
double peak_to_mean(const std::vector<double>& values);

}  // namespace tidal::ui
