// Small numeric helpers the report sections share: sorted samples, nearest-rank percentiles
// (the definition of sim/sample_set.h), CDF series thinned for drawing, arrival counts per
// timeline interval and the peak-to-mean ratio.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reports/svg_chart.h"

namespace tidal::reports {

// The finite values of `values` where `keep` is empty or keep[i] != 0, sorted ascending.
std::vector<double> sorted_finite(const std::vector<double>& values,
                                  const std::vector<uint8_t>& keep = {});
// The same, keeping values whose `group[i] == group_id`.
std::vector<double> sorted_finite_in_group(const std::vector<double>& values,
                                           const std::vector<int32_t>& group, int32_t group_id);

// Nearest-rank percentile of sorted samples: x[ceil(p / 100 * n)] (1-based), p in (0, 100].
// Requires a non-empty vector.
double nearest_rank(const std::vector<double>& sorted, double p);

// An empirical CDF as a line series: (value, share of samples <= value) at no more than
// `max_points` ranks spread evenly, always including the first and last sample.
Series cdf_series(const std::string& name, const std::vector<double>& sorted,
                  size_t max_points = 240);

// Counts of `times` in each interval [start[i], end[i]); times past the last end count in the
// last interval.
std::vector<double> counts_per_interval(const std::vector<double>& times,
                                        const std::vector<double>& start,
                                        const std::vector<double>& end);

// Arrival rates per interval and their peak-to-mean ratio. The span is the intervals up to
// and including the one holding the last arrival; mean = arrivals / span seconds; peak = the
// highest interval rate.
struct RateProfile {
  std::vector<double> rate_per_s;  // [num_intervals]
  double mean_per_s = 0.0;
  double peak_per_s = 0.0;
  double peak_to_mean = 0.0;  // 0 when there are no arrivals
};
RateProfile rate_profile(const std::vector<double>& counts, const std::vector<double>& start,
                         const std::vector<double>& end);

}  // namespace tidal::reports
