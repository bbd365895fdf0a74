// Head-of-line blocking accounting (docs/fleet.md, "Head-of-line blocking").
//
// Step stretch. A step runs sequences, each with some new tokens. The long prefills are the
// sequences with at least `long_prefill_tokens` new tokens. With t_all the step's time and
// t_without its time without the long prefills (both from the caller's step-time model):
//   stretch       = max(0, t_all - t_without)     (0 when there is no long prefill, or only)
//   delay[i]      = stretch for every sequence that is not a long prefill, 0 for long prefills
//   caused[j]     = stretch * num_delayed * tokens[j] / tokens of all long prefills
// so sum(caused) == sum(delay): the time long prefills took from everyone else, and who took it.
//
// Peak-to-mean. Arrivals in [0, duration) fall in bins [k * bin, (k + 1) * bin); a bin's rate
// is its count / bin; peak = the largest bin rate; mean = arrivals / duration; ratio =
// peak / mean (0 with no arrivals). Computed per tenant and for the aggregate of all tenants.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "traces/request.h"

namespace tidal::fleet {

bool is_long_prefill(int64_t num_new_tokens, int64_t long_prefill_tokens);

struct StepStretch {
  double stretch_s = 0.0;
  std::vector<double> delay_s;   // [num_sequences]
  std::vector<double> caused_s;  // [num_sequences]
};

// `num_new_tokens`: [num_sequences]; long_prefill_tokens >= 1.
StepStretch attribute_step_stretch(std::span<const int64_t> num_new_tokens,
                                   int64_t long_prefill_tokens, double step_s,
                                   double step_without_long_s);

struct PeakToMean {
  int64_t num_arrivals = 0;  // in [0, duration)
  double peak_per_s = 0.0;
  double mean_per_s = 0.0;
  double ratio = 0.0;
};

// The bin counts of arrivals added one at a time (a run's metrics add each request as they read
// it, holding no arrival times): the same figures as peak_to_mean over the same times.
class ArrivalBins {
 public:
  // bin_s > 0, duration_s > 0 (std::logic_error otherwise).
  ArrivalBins(double bin_s, double duration_s);
  void add(double arrival_s);  // not counted outside [0, duration)
  PeakToMean summarize() const;

 private:
  double bin_s_;
  double duration_s_;
  std::vector<int64_t> counts_;  // [ceil(duration / bin), at least 1] arrivals per bin
  int64_t num_arrivals_ = 0;     // counted ones
};

// bin_s > 0, duration_s > 0; arrivals outside [0, duration) are not counted.
PeakToMean peak_to_mean(std::span<const double> arrival_s, double bin_s, double duration_s);

struct TenantPeakToMean {
  std::string tenant;  // "" for requests that name no tenant
  PeakToMean demand;
};

struct DemandPeaks {
  std::vector<TenantPeakToMean> tenants;  // sorted by tenant name
  PeakToMean aggregate;                   // every request
};

DemandPeaks tenant_peak_to_mean(std::span<const Request> requests, double bin_s, double duration_s);

}  // namespace tidal::fleet
