#include "sim/sample_set.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstddef>

namespace tidal::sim {
namespace {

// A positive double's bit pattern grows with its value; dropping all but the top 10 mantissa
// bits leaves 1024 equal-ratio bins per octave.
constexpr int kDroppedBits = 42;
constexpr double kMinSeconds = 1e-9;  // samples below land in bin 0
constexpr double kMaxSeconds = 1e6;   // samples above land in the last bin

constexpr uint64_t key_of(double seconds) {
  return std::bit_cast<uint64_t>(seconds) >> kDroppedBits;
}
constexpr uint64_t kMinKey = key_of(kMinSeconds);
constexpr uint64_t kNumBins = key_of(kMaxSeconds) - kMinKey + 1;

size_t bin_of(double seconds) {
  if (!(seconds > kMinSeconds)) return 0;
  if (!(seconds < kMaxSeconds)) return kNumBins - 1;
  return key_of(seconds) - kMinKey;
}

double bin_centre(size_t bin) {
  const uint64_t key = kMinKey + bin;
  const double lo = std::bit_cast<double>(key << kDroppedBits);
  const double hi = std::bit_cast<double>((key + 1) << kDroppedBits);
  return 0.5 * (lo + hi);
}

}  // namespace

void SampleSet::add(double seconds) {
  add(seconds, 1);
}

void SampleSet::add(double seconds, int64_t count) {
  if (count <= 0) return;
  if (count_ == 0) {
    min_ = max_ = seconds;
  } else {
    min_ = std::min(min_, seconds);
    max_ = std::max(max_, seconds);
  }
  count_ += count;
  for (int64_t i = 0; i < count; ++i) sum_ += seconds;  // one at a time, as add() sums
  if (!bins_.empty()) {
    bins_[bin_of(seconds)] += count;
    return;
  }
  if (!samples_.empty() && seconds < samples_.back()) sorted_ = false;
  samples_.insert(samples_.end(), static_cast<size_t>(count), seconds);
  partition_ = 0;  // a selection's order no longer holds
  if (count_ > kExactLimit) spill_to_histogram();
}

void SampleSet::spill_to_histogram() {
  bins_.assign(kNumBins, 0);
  for (double s : samples_) ++bins_[bin_of(s)];
  samples_.clear();
  samples_.shrink_to_fit();
}

double SampleSet::percentile(double p) {
  assert(count_ > 0);
  const int64_t k = traces::nearest_rank_position(p, count_);
  if (bins_.empty()) {
    const auto position = static_cast<size_t>(k - 1);
    if (!sorted_ && num_selections_ < kMaxSelections) {
      // Select instead of sorting: linear time, where a sort of every token's gap took a fifth
      // of a plan search. Within the part above the last selection when the queries ascend.
      const size_t from = position >= partition_ ? partition_ : 0;
      std::nth_element(samples_.begin() + static_cast<std::ptrdiff_t>(from),
                       samples_.begin() + static_cast<std::ptrdiff_t>(position), samples_.end());
      partition_ = position;
      ++num_selections_;
      return samples_[position];
    }
    if (!sorted_) {
      std::sort(samples_.begin(), samples_.end());
      sorted_ = true;
    }
    return samples_[position];
  }
  int64_t seen = 0;
  for (size_t b = 0; b < kNumBins; ++b) {
    seen += bins_[b];
    if (seen >= k) return std::clamp(bin_centre(b), min_, max_);
  }
  return max_;
}

LatencySummary SampleSet::summarize() {
  LatencySummary s;
  if (count_ == 0) return s;
  s.count = count_;
  s.mean = sum_ / static_cast<double>(count_);
  s.p50 = percentile(50);
  s.p90 = percentile(90);
  s.p99 = percentile(99);
  s.max = max_;
  return s;
}

int64_t count_percentile(const std::vector<int64_t>& counts, double p) {
  int64_t n = 0;
  for (int64_t c : counts) n += c;
  if (n == 0) return 0;
  const int64_t k = traces::nearest_rank_position(p, n);
  int64_t seen = 0;
  for (size_t v = 0; v < counts.size(); ++v) {
    seen += counts[v];
    if (seen >= k) return static_cast<int64_t>(v);
  }
  return static_cast<int64_t>(counts.size()) - 1;
}

}  // namespace tidal::sim
