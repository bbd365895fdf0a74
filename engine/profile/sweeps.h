// The three forward sweeps both profilers (profiler.h: CPU, cuda_target.h: CUDA) run through
// their forward bench: per-token operators over num_tokens, decode attention over (batch,
// context) with the LM head and host sampling per batch, prefill attention over (chunk,
// context). Each sweep's first pass grows its grid until a point's forward exceeds
// max_point_seconds; then passes 2..num_passes run over every point of all three sweeps in turn,
// and per point the median of each field over its passes is kept (median_times). One point's
// passes thus lie as far apart as the whole profile: a slow stretch of the machine (other
// processes, a hypervisor neighbour; seconds to tens of seconds) spoils one pass of a point, not
// its median. Medians (of repeats and of passes) estimate what an engine step typically costs; a
// least or a lower quartile predicted steps 2-4% short.
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
#include "perf/profile.h"

namespace tidal::profile {

// One forward over a batch on the bench, timed.
using RunForward = std::function<ForwardTimes(std::span<const perf::SeqWork> batch)>;

struct TokenSweep {
  std::vector<int64_t> tokens;  // [num_points]
  // [class][num_points] seconds per layer; the embedding's per step, with the forward's own
  // work outside the operators (flattening the batch, allocating activations) added.
  std::map<perf::OpClass, std::vector<double>> seconds;
  std::vector<double> allreduce_seconds;  // [num_points] one all-reduce call (of two per layer)
};

struct DecodeSweep {
  std::vector<int64_t> batches;           // [num_rows]
  std::vector<int64_t> contexts;          // [num_contexts]
  std::vector<double> attention_seconds;  // [num_rows, num_contexts] per layer
  std::vector<double> head_seconds;       // [num_rows] the LM head, at the first context
  std::vector<double> sampling_seconds;   // [num_rows] host sampling (time_sampling)
};

struct PrefillSweep {
  std::vector<int64_t> chunks;            // [num_rows]
  std::vector<int64_t> contexts;          // [num_contexts]
  std::vector<double> attention_seconds;  // [num_rows, num_contexts] per layer
};

struct OperatorSweeps {
  TokenSweep tokens;
  DecodeSweep decode;
  PrefillSweep prefill;
};

// The three sweeps of a profile over `config` within options' limits: each first pass followed
// by its progress line ("<label>: ...", with the seconds since `start`), then passes
// 2..num_passes over all points (one line), then the tables in `profile`: the per-token
// operators, the LM head and sampling, the measured attention grids (kept in *measured when
// given).
OperatorSweeps measure_operators(const RunForward& run, const models::ModelConfig& config,
                                 const ProfileOptions& options,
                                 const kernels::SamplingParams& sampling, int num_passes,
                                 const std::string& label, const ProgressFn& progress,
                                 std::chrono::steady_clock::time_point start,
                                 perf::Profile& profile, std::vector<MeasuredSeries>* measured);

}  // namespace tidal::profile
