#include "validate/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tidal::validate {

double nearest_rank(const std::vector<double>& sorted, double p) {
  const auto n = static_cast<double>(sorted.size());
  const auto rank = static_cast<size_t>(std::max(1.0, std::ceil(p / 100.0 * n - 1e-9)));
  return sorted[std::min(rank, sorted.size()) - 1];
}

Distribution describe(std::vector<double> samples) {
  Distribution d;
  d.count = static_cast<int64_t>(samples.size());
  if (samples.empty()) return d;
  std::sort(samples.begin(), samples.end());
  d.mean =
      std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  d.p50 = nearest_rank(samples, 50.0);
  d.p90 = nearest_rank(samples, 90.0);
  d.p99 = nearest_rank(samples, 99.0);
  return d;
}

std::optional<double> signed_pct_error(double predicted, double measured) {
  if (measured == 0.0) return predicted == 0.0 ? std::optional<double>(0.0) : std::nullopt;
  return 100.0 * (predicted - measured) / measured;
}

std::optional<double> abs_pct_error(double predicted, double measured) {
  const std::optional<double> e = signed_pct_error(predicted, measured);
  return e ? std::optional<double>(std::abs(*e)) : std::nullopt;
}

double ks_distance(std::vector<double> a, std::vector<double> b) {
  if (a.empty() && b.empty()) return 0.0;
  if (a.empty() || b.empty()) return 1.0;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  const auto na = static_cast<double>(a.size());
  const auto nb = static_cast<double>(b.size());
  size_t i = 0;
  size_t j = 0;
  double distance = 0.0;
  // Step through the distinct values in order; after taking every sample equal to x from both,
  // the CDFs are evaluated at x.
  while (i < a.size() || j < b.size()) {
    const double x = j == b.size() || (i < a.size() && a[i] <= b[j]) ? a[i] : b[j];
    while (i < a.size() && a[i] == x) ++i;
    while (j < b.size() && b[j] == x) ++j;
    distance =
        std::max(distance, std::abs(static_cast<double>(i) / na - static_cast<double>(j) / nb));
  }
  return distance;
}

}  // namespace tidal::validate
