// The plan of the device top-k / top-p sampler (kernels/cuda/sampling.cu): which cuts run, how
// many passes over a row of logits each takes, and the fixed-point resolution of its mass
// histograms. Plain C++ (no CUDA headers), compiled into tidal_kernels on every build and unit
// tested without a GPU (tests/kernels/sampling_plan_test.cpp); the kernel takes its parameters
// from here. Spec of the draw: kernels::sampling_distribution + sample_from_distribution.
//
// One block of kSampleThreads per row. Cuts are thresholds on the 32-bit order keys of the
// logits (a < b iff key(a) < key(b)) found by radix select, kSampleDigitBits per pass from the
// top: top-k over counts (exact), top-p over masses (weights exp((x - max) / T) <= 1 summed as
// integers of 2^-fixed_point_bits, so the histograms are exact and order-free), then checked and
// corrected with the double sums the reference criterion uses. Ties at a threshold are kept in
// index order up to an index cut found by one in-order pass.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/sampling.h"

namespace tidal::kernels::cuda {

inline constexpr int kSampleThreads = 1024;
inline constexpr int kSampleDigitBits = 8;
inline constexpr int kSampleDigitPasses = 32 / kSampleDigitBits;
inline constexpr int kSampleBins = 1 << kSampleDigitBits;
// Correction steps of the top-p threshold (each one pass) before the kernel keeps what it has.
inline constexpr int kSampleMaxCorrections = 8;

struct SamplingPlan {
  bool greedy = false;          // temperature 0: the argmax pass only
  bool top_k_cut = false;       // 0 < top_k < vocab
  bool top_p_cut = false;       // top_p < 1
  int fixed_point_bits = 0;     // vocab * 2^bits < 2^63, at most 52
  int64_t passes_over_row = 0;  // reads of the row, without top-p corrections
  int64_t weight_passes = 0;    // passes computing exp() for every kept logit
  size_t shared_bytes = 0;      // static shared memory of the kernel
};

// std::invalid_argument for the parameters kernels::sampling_distribution rejects, or a vocab
// outside (0, 2^31).
SamplingPlan plan_sampling(int64_t vocab, const SamplingParams& params);

}  // namespace tidal::kernels::cuda
