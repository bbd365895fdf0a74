#include "reports/distribution.h"

#include <algorithm>
#include <cmath>

namespace tidal::reports {

std::vector<double> sorted_finite(const std::vector<double>& values,
                                  const std::vector<uint8_t>& keep) {
  std::vector<double> out;
  out.reserve(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if ((keep.empty() || keep[i] != 0) && std::isfinite(values[i])) out.push_back(values[i]);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<double> sorted_finite_in_group(const std::vector<double>& values,
                                           const std::vector<int32_t>& group, int32_t group_id) {
  std::vector<double> out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (group[i] == group_id && std::isfinite(values[i])) out.push_back(values[i]);
  }
  std::sort(out.begin(), out.end());
  return out;
}

double nearest_rank(const std::vector<double>& sorted, double p) {
  const double n = static_cast<double>(sorted.size());
  const auto k = static_cast<size_t>(std::max(1.0, std::ceil(p / 100.0 * n - 1e-9)));
  return sorted[std::min(k, sorted.size()) - 1];
}

Series cdf_series(const std::string& name, const std::vector<double>& sorted, size_t max_points) {
  Series s;
  s.name = name;
  s.style = SeriesStyle::line;
  const size_t n = sorted.size();
  if (n == 0) return s;
  const size_t num_points = std::min(n, std::max<size_t>(max_points, 2));
  for (size_t j = 0; j < num_points; ++j) {
    // Rank (1-based) of the j-th drawn point; the last point is the largest sample.
    const size_t rank =
        num_points == 1 ? n
                        : 1 + static_cast<size_t>(
                                  std::llround(static_cast<double>(j) * static_cast<double>(n - 1) /
                                               static_cast<double>(num_points - 1)));
    s.x.push_back(sorted[rank - 1]);
    s.y.push_back(static_cast<double>(rank) / static_cast<double>(n));
  }
  return s;
}

std::vector<double> counts_per_interval(const std::vector<double>& times,
                                        const std::vector<double>& start,
                                        const std::vector<double>& end) {
  std::vector<double> counts(start.size(), 0.0);
  if (start.empty()) return counts;
  for (double t : times) {
    // The first interval whose end is past t.
    auto it = std::upper_bound(end.begin(), end.end(), t);
    size_t i = static_cast<size_t>(it - end.begin());
    if (i >= counts.size()) i = counts.size() - 1;
    counts[i] += 1.0;
  }
  return counts;
}

RateProfile rate_profile(const std::vector<double>& counts, const std::vector<double>& start,
                         const std::vector<double>& end) {
  RateProfile profile;
  size_t last = 0;  // one past the last interval with arrivals
  double total = 0.0;
  for (size_t i = 0; i < counts.size(); ++i) {
    const double width = end[i] - start[i];
    profile.rate_per_s.push_back(counts[i] / width);
    if (counts[i] > 0) last = i + 1;
    total += counts[i];
  }
  if (last == 0) return profile;
  const double span_s = end[last - 1] - start[0];
  profile.mean_per_s = total / span_s;
  for (size_t i = 0; i < last; ++i) {
    profile.peak_per_s = std::max(profile.peak_per_s, profile.rate_per_s[i]);
  }
  profile.peak_to_mean = profile.peak_per_s / profile.mean_per_s;
  return profile;
}

}  // namespace tidal::reports
