#include "sim/fleet/hol_blocking.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace tidal::fleet {

bool is_long_prefill(int64_t num_new_tokens, int64_t long_prefill_tokens) {
  return num_new_tokens >= long_prefill_tokens;
}

StepStretch attribute_step_stretch(std::span<const int64_t> num_new_tokens,
                                   int64_t long_prefill_tokens, double step_s,
                                   double step_without_long_s) {
  if (long_prefill_tokens < 1) {
    throw std::logic_error("attribute_step_stretch: long_prefill_tokens must be >= 1");
  }
  StepStretch out;
  out.delay_s.assign(num_new_tokens.size(), 0.0);
  out.caused_s.assign(num_new_tokens.size(), 0.0);
  int64_t num_delayed = 0;
  int64_t long_tokens = 0;
  for (int64_t tokens : num_new_tokens) {
    if (is_long_prefill(tokens, long_prefill_tokens)) {
      long_tokens += tokens;
    } else {
      ++num_delayed;
    }
  }
  if (num_delayed == 0 || long_tokens == 0) return out;
  out.stretch_s = std::max(0.0, step_s - step_without_long_s);
  const double total_delay_s = out.stretch_s * static_cast<double>(num_delayed);
  for (size_t i = 0; i < num_new_tokens.size(); ++i) {
    if (is_long_prefill(num_new_tokens[i], long_prefill_tokens)) {
      out.caused_s[i] =
          total_delay_s * static_cast<double>(num_new_tokens[i]) / static_cast<double>(long_tokens);
    } else {
      out.delay_s[i] = out.stretch_s;
    }
  }
  return out;
}

namespace {

size_t num_bins(double bin_s, double duration_s) {
  if (!(bin_s > 0) || !(duration_s > 0)) {
    throw std::logic_error("peak_to_mean: bin_s and duration_s must be > 0");
  }
  return std::max<size_t>(1, static_cast<size_t>(std::ceil(duration_s / bin_s)));
}

}  // namespace

ArrivalBins::ArrivalBins(double bin_s, double duration_s)
    : bin_s_(bin_s), duration_s_(duration_s), counts_(num_bins(bin_s, duration_s), 0) {}

void ArrivalBins::add(double arrival_s) {
  if (!(arrival_s >= 0 && arrival_s < duration_s_)) return;
  const auto bin = std::min(counts_.size() - 1, static_cast<size_t>(arrival_s / bin_s_));
  ++counts_[bin];
  ++num_arrivals_;
}

PeakToMean ArrivalBins::summarize() const {
  PeakToMean out;
  out.num_arrivals = num_arrivals_;
  out.peak_per_s = static_cast<double>(*std::max_element(counts_.begin(), counts_.end())) / bin_s_;
  out.mean_per_s = static_cast<double>(num_arrivals_) / duration_s_;
  out.ratio = num_arrivals_ == 0 ? 0.0 : out.peak_per_s / out.mean_per_s;
  return out;
}

PeakToMean peak_to_mean(std::span<const double> arrival_s, double bin_s, double duration_s) {
  ArrivalBins bins(bin_s, duration_s);
  for (double t : arrival_s) bins.add(t);
  return bins.summarize();
}

DemandPeaks tenant_peak_to_mean(std::span<const Request> requests, double bin_s,
                                double duration_s) {
  std::map<std::string, std::vector<double>> by_tenant;  // tenant -> arrival times
  std::vector<double> all;                               // [num_requests]
  all.reserve(requests.size());
  for (const Request& request : requests) {
    by_tenant[request.tenant].push_back(request.arrival_s);
    all.push_back(request.arrival_s);
  }
  DemandPeaks out;
  for (const auto& [tenant, arrivals] : by_tenant) {
    out.tenants.push_back(TenantPeakToMean{tenant, peak_to_mean(arrivals, bin_s, duration_s)});
  }
  out.aggregate = peak_to_mean(all, bin_s, duration_s);
  return out;
}

}  // namespace tidal::fleet
