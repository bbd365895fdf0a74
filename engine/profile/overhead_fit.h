// The cpu_overhead section fitted to the overhead waves' samples: a step spends, beyond the
// operator time its plan has in the profile's tables, a share of that operator time (operators run
// slower among an engine step's other work than timed alone: caches and predictors hold other
// data) plus a time per number of sequences (scheduling, input preparation, bookkeeping).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/profile/step_overhead.h"

namespace tidal::profile {

struct OverheadModel {
  std::vector<int64_t> num_seqs;  // [num_points], the sample's batch sizes, increasing
  std::vector<double> seconds;    // [num_points], >= 0
  double share_of_operator_time = 0.0;
};

// Decode-only steps give a first time per batch size (their residuals' mean with values above the
// 99th percentile lowered to it, so an occasional interruption counts and a rare long stall does
// not; interpolated between batch sizes). Steps with prefill carry most of the operator time: the
// share is the median over them of (residual - that time) / operator time, clamped to [-0.5, 1]; 0
// without both kinds of step. Then the time per batch size is that winsorized mean of its
// decode-only steps' residual - share x operator time (the median over all its steps where it
// has no decode-only step), clamped at 0. std::invalid_argument for no samples.
OverheadModel fit_overhead(std::span<const OverheadSample> samples);

}  // namespace tidal::profile
