// A distribution of latency samples (seconds) with exact nearest-rank percentiles.
//
// Percentiles are nearest-rank (traces/run_figures.h, used for every percentile tidal reports).
//
// Exact while the set holds at most kExactLimit (10^6) samples (8 MB). Past that the samples
// move into a log-spaced histogram (1024 bins per factor of two, cut from the bits of the
// double: about 51,000 bins from 1 ns to 10^6 s, 400 KB, whatever the count) and a percentile
// is the centre of the bin holding the nearest-rank sample. A bin spans [lo, lo + 2^-10 x 2^e)
// for samples in [2^e, 2^(e+1)), so the centre is within 2^-11 (0.049%) of the sample,
// relative; samples below 1 ns or above 10^6 s share the end bins (the result is clamped to
// min and max). Count, mean, min and max stay exact in both modes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "traces/run_figures.h"

namespace tidal::sim {

using traces::LatencySummary;

class SampleSet {
 public:
  static constexpr int64_t kExactLimit = 1'000'000;

  void add(double seconds);
  void reserve(size_t n) { samples_.reserve(n); }

  int64_t count() const { return count_; }
  bool exact() const { return bins_.empty(); }

  // Nearest-rank percentile, p in (0, 100]. Requires count() > 0. Sorts the samples lazily.
  double percentile(double p);
  LatencySummary summarize();

 private:
  void spill_to_histogram();

  std::vector<double> samples_;  // [count_] while exact(); empty afterwards
  std::vector<int64_t> bins_;    // [num bins] counts, empty while exact()
  bool sorted_ = true;
  int64_t count_ = 0;
  double sum_ = 0.0;
  double min_ = 0.0;
  double max_ = 0.0;
};

// The nearest-rank p-th percentile, p in (0, 100], of integer samples given as counts:
// counts[v] samples equal v. Exact; 0 when there are no samples.
int64_t count_percentile(const std::vector<int64_t>& counts, double p);

}  // namespace tidal::sim
