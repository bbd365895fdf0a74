// The three forward sweeps both profilers (profiler.h: CPU, cuda_target.h: CUDA) run through
// their forward bench: per-token operators over num_tokens, decode attention over (batch,
// context) with the LM head and host sampling per batch, prefill attention over (chunk,
// context). A sweep grows its grid until a point's forward exceeds max_point_seconds, then runs
// the whole list num_passes - 1 more times, keeping per point the median of each field over the
// passes (median_times): a burst of contention from other processes, which lasts seconds, spoils
// the pass it overlaps, not the median. Medians (of repeats and of passes) estimate what an
// engine step typically costs; a least or a lower quartile predicted steps 2-4% short.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "engine/profile/forward_bench.h"
#include "engine/profile/profiler.h"
#include "kernels/sampling.h"
#include "models/config.h"
#include "sim/perf/profile.h"

namespace tidal::profile {

// One forward over a batch on the bench, timed.
using RunForward = std::function<ForwardTimes(std::span<const perf::SeqWork> batch)>;

// How far a sweep grows and how often it is run.
struct SweepLimits {
  double max_point_seconds = 0.5;  // the grid stops after a point whose forward takes longer
  int num_passes = 1;              // runs of the whole grid; per point the median is kept
};

struct TokenSweep {
  std::vector<int64_t> tokens;  // [num_points]
  // [class][num_points] seconds per layer; the embedding's per step, with the forward's own
  // work outside the operators (flattening the batch, allocating activations) added.
  std::map<perf::OpClass, std::vector<double>> seconds;
  std::vector<double> allreduce_seconds;  // [num_points] one all-reduce call (of two per layer)
};

// One sequence of T new tokens at context 0, T over token_grid(max_tokens).
TokenSweep sweep_tokens(const RunForward& run, const std::vector<perf::OpClass>& classes,
                        int64_t max_tokens, double layers, const SweepLimits& limits);

struct DecodeSweep {
  std::vector<int64_t> batches;           // [num_rows]
  std::vector<int64_t> contexts;          // [num_contexts]
  std::vector<double> attention_seconds;  // [num_rows, num_contexts] per layer
  std::vector<double> head_seconds;       // [num_rows] the LM head, at the first context
  std::vector<double> sampling_seconds;   // [num_rows] host sampling (time_sampling)
};

// `batch` sequences of one new token at each context of context_grid(16, max_position / 2) (at
// least 16), batch over powers_of_two(max_batch_size); sampling timed with `sampling_repeats`
// repeats per batch.
DecodeSweep sweep_decode(const RunForward& run, int64_t max_position, int64_t max_batch_size,
                         double layers, int64_t vocab, const kernels::SamplingParams& sampling,
                         int sampling_repeats, const SweepLimits& limits);

struct PrefillSweep {
  std::vector<int64_t> chunks;            // [num_rows]
  std::vector<int64_t> contexts;          // [num_contexts]
  std::vector<double> attention_seconds;  // [num_rows, num_contexts] per layer
};

// One sequence's chunk on top of each context of {0} + context_grid(16, max_position / 2), chunk
// over powers_of_two up to max_tokens and what the largest context leaves of max_position.
PrefillSweep sweep_prefill(const RunForward& run, int64_t max_position, int64_t max_tokens,
                           double layers, const SweepLimits& limits);

struct OperatorSweeps {
  TokenSweep tokens;
  DecodeSweep decode;
  PrefillSweep prefill;
};

// The three sweeps of a profile over `config` within options' limits (num_passes as given),
// each followed by its progress line ("<label>: ...", with the seconds since `start`) and its
// tables in `profile`: the per-token operators, the LM head and sampling, the measured attention
// grids (kept in *measured when given).
OperatorSweeps measure_operators(const RunForward& run, const models::ModelConfig& config,
                                 const ProfileOptions& options,
                                 const kernels::SamplingParams& sampling, int num_passes,
                                 const std::string& label, const ProgressFn& progress,
                                 std::chrono::steady_clock::time_point start,
                                 perf::Profile& profile, std::vector<MeasuredSeries>* measured);

}  // namespace tidal::profile
