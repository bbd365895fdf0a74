#include "engine/profile/overhead_fit.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "engine/profile/piecewise_fit.h"
#include "perf/interpolation.h"

namespace tidal::profile {

namespace {

constexpr double kMinShare = -0.5;
constexpr double kMaxShare = 1.0;
constexpr double kWinsorQuantile = 0.99;

// The mean with values above the kWinsorQuantile order statistic lowered to it: a decode step's
// occasional interruption belongs to its expected time, a rare stall of milliseconds does not.
double winsorized_mean(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const double cap =
      values[static_cast<size_t>(kWinsorQuantile * static_cast<double>(values.size() - 1))];
  double sum = 0.0;
  for (double v : values) sum += std::min(v, cap);
  return sum / static_cast<double>(values.size());
}

// Winsorized mean residual of the decode-only steps per batch size, interpolated; empty: none.
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
    ys.push_back(winsorized_mean(residuals));
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
  // num_seqs -> residuals beyond the share, of all steps and of the decode-only ones
  std::map<int64_t, std::pair<std::vector<double>, std::vector<double>>> by_seqs;
  for (const OverheadSample& s : samples) {
    const double beyond = s.seconds - model.share_of_operator_time * s.operator_seconds;
    auto& [all, decode_only] = by_seqs[s.num_seqs];
    all.push_back(beyond);
    if (!s.has_prefill) decode_only.push_back(beyond);
  }
  for (auto& [num_seqs, residuals] : by_seqs) {
    auto& [all, decode_only] = residuals;
    model.num_seqs.push_back(num_seqs);
    model.seconds.push_back(std::max(0.0, decode_only.empty()
                                              ? median(std::move(all))
                                              : winsorized_mean(std::move(decode_only))));
  }
  return model;
}

}  // namespace tidal::profile
