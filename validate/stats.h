// The numbers a validation reports: summaries of a latency distribution (nearest-rank
// percentiles, the definition every tidal output uses), percentage errors and the
// Kolmogorov-Smirnov distance between two samples.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace tidal::validate {

struct Distribution {
  int64_t count = 0;
  double mean = 0.0, p50 = 0.0, p90 = 0.0, p99 = 0.0;  // 0 when count == 0
};

// Nearest rank: the p-th percentile of n sorted samples is x[ceil(p / 100 * n)] (1-based).
Distribution describe(std::vector<double> samples);
// p in (0, 100]; `sorted` ascending and non-empty.
double nearest_rank(const std::vector<double>& sorted, double p);

// 100 * (predicted - measured) / measured; empty when measured == 0 (undefined), except 0 when
// both are 0.
std::optional<double> signed_pct_error(double predicted, double measured);
std::optional<double> abs_pct_error(double predicted, double measured);

// sup over x of |F_a(x) - F_b(x)| for the empirical CDFs of the two samples; 0 when both are
// empty, 1 when exactly one is.
double ks_distance(std::vector<double> a, std::vector<double> b);

}  // namespace tidal::validate
