#include "engine/profile/overhead_fit.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "engine/profile/piecewise_fit.h"
#include "sim/perf/interpolation.h"

namespace tidal::profile {

namespace {

constexpr double kMinShare = -0.5;
constexpr double kMaxShare = 1.0;

// Median residual of the decode-only steps per batch size, interpolated; empty: none.
perf::Table1D decode_overhead(std::span<const OverheadSample> samples) {
  std::map<int64_t, std::vector<double>> by_seqs;  // num_seqs -> residual seconds
  for (const OverheadSample& s : samples) {
    if (!s.has_prefill) by_seqs[s.num_seqs].push_back(s.seconds);
  }
  if (by_seqs.empty()) return {};
  std::vector<double> xs;  // [num_batch_sizes]
  std::vector<double> ys;  // [num_batch_sizes]
  for (const auto& [num_seqs, residuals] : by_seqs) {
    xs.push_back(static_cast<double>(num_seqs));
    ys.push_back(median(residuals));
  }
  return perf::Table1D(std::move(xs), std::move(ys));
}

double operator_share(std::span<const OverheadSample> samples) {
  const perf::Table1D per_seqs = decode_overhead(samples);
  if (per_seqs.empty()) return 0.0;
  std::vector<double> shares;  // [num prefill samples]
  for (const OverheadSample& s : samples) {
    if (s.has_prefill && s.operator_seconds > 0.0) {
      shares.push_back((s.seconds - per_seqs(static_cast<double>(s.num_seqs))) /
                       s.operator_seconds);
    }
  }
  if (shares.empty()) return 0.0;
  return std::clamp(median(std::move(shares)), kMinShare, kMaxShare);
}

}  // namespace

OverheadModel fit_overhead(std::span<const OverheadSample> samples) {
  if (samples.empty()) throw std::invalid_argument("fit_overhead: no samples");
  OverheadModel model;
  model.share_of_operator_time = operator_share(samples);
  std::map<int64_t, std::vector<double>> by_seqs;  // num_seqs -> residual beyond the share
  for (const OverheadSample& s : samples) {
    by_seqs[s.num_seqs].push_back(s.seconds - model.share_of_operator_time * s.operator_seconds);
  }
  for (const auto& [num_seqs, residuals] : by_seqs) {
    model.num_seqs.push_back(num_seqs);
    model.seconds.push_back(std::max(0.0, median(residuals)));
  }
  return model;
}

}  // namespace tidal::profile
