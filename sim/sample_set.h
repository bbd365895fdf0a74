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
  // `count` samples of `seconds`: the same set, sum included bit for bit, as `count` add()s.
  void add(double seconds, int64_t count);
  void reserve(size_t n) { samples_.reserve(n); }

  int64_t count() const { return count_; }
  bool exact() const { return bins_.empty(); }

  // Nearest-rank percentile, p in (0, 100]. Requires count() > 0. The first kMaxSelections
  // queries select the sample (std::nth_element, linear time; ascending queries look only above
  // the previous one); later ones sort the samples once.
  double percentile(double p);
  LatencySummary summarize();

 private:
  void spill_to_histogram();

  static constexpr int kMaxSelections = 4;  // p50, p90, p99 and one more before a sort pays

  std::vector<double> samples_;  // [count_] while exact(); empty afterwards
  std::vector<int64_t> bins_;    // [num bins] counts, empty while exact()
  bool sorted_ = true;
  // After a selection: samples_[i] <= samples_[partition_] <= samples_[j] for i < partition_ < j
  // (0 when no selection holds).
  size_t partition_ = 0;
  int num_selections_ = 0;
  int64_t count_ = 0;
  double sum_ = 0.0;
  double min_ = 0.0;
  double max_ = 0.0;
};

// The nearest-rank p-th percentile, p in (0, 100], of integer samples given as counts:
// counts[v] samples equal v. Exact; 0 when there are no samples.
int64_t count_percentile(const std::vector<int64_t>& counts, double p);

}  // namespace tidal::sim
