// The parts of a measured perf::Profile that the CPU profiler (profiler.h) and the CUDA profiler
// (cuda_target.h) build the same way: the header fields, tables fitted piecewise-linear from
// measured medians (kept in the MeasuredSeries list when one is asked for), the host sampling
// timing, the CPU overhead measured from real engine steps and the size of the forward bench's KV
// arena.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/engine_config.h"
#include "engine/profile/profiler.h"
#include "kernels/sampling.h"
#include "models/config.h"
#include "models/model_weights.h"
#include "perf/gpu_catalog.h"
#include "perf/model_catalog.h"
#include "perf/profile.h"

namespace tidal::profile {

// Seconds of steady_clock time since `start`.
double seconds_since(std::chrono::steady_clock::time_point start);

// Today's date in UTC, "YYYY-MM-DD".
std::string utc_date();

// Appends {name, xs, ys} to *measured; nothing when measured is null.
void keep_series(std::vector<MeasuredSeries>* measured, std::string name,
                 const std::vector<int64_t>& xs, const std::vector<double>& ys);

// A measured 1-D table over integer sizes: ys over xs fitted piecewise-linear within `tolerance`.
perf::OperatorTable fitted_table(const std::vector<int64_t>& xs, const std::vector<double>& ys,
                                 perf::OpScope scope, double tolerance);

// A profile with only its header set: provenance backend, device, today's date and this build's
// commit; the model's dimensions (named `model_name`); tp and the weight and KV dtypes of `ec`.
perf::Profile profile_header(const std::string& backend, const std::string& device,
                             const std::string& model_name, const models::ModelConfig& config,
                             const engine::EngineConfig& ec);

// Seconds of sampling one token for each of num_seqs sequences on the host (every backend's
// engine samples there from each sequence's logits row): one warm-up, then the median of
// `repeats`.
double time_sampling(int64_t num_seqs, int64_t vocab, const kernels::SamplingParams& params,
                     int repeats);

// The per-token operator tables from the token sweep: `seconds[c]` ([num_points] per class) over
// `tokens`; the embedding is per step, the rest per layer.
void fit_token_operators(perf::Profile& profile, const std::vector<perf::OpClass>& classes,
                         const std::vector<int64_t>& tokens,
                         const std::map<perf::OpClass, std::vector<double>>& seconds,
                         double tolerance, std::vector<MeasuredSeries>* measured);

// The LM head and sampling tables (per step) over the decode sweep's batch sizes.
void fit_batch_operators(perf::Profile& profile, const std::vector<int64_t>& batches,
                         const std::vector<double>& head_seconds,
                         const std::vector<double>& sampling_seconds, double tolerance,
                         std::vector<MeasuredSeries>* measured);

// How many engine steps measure_cpu_overhead sampled, the largest num_seqs among them, and the
// fitted share of operator time.
struct OverheadFit {
  size_t num_samples = 0;
  int64_t max_num_seqs = 0;
  double share_of_operator_time = 0.0;
};

// The cpu_overhead section: real engine steps (measure_step_overhead: waves of `wave_sizes`
// requests on an engine of `ec` over `weights`) minus the operator time that `profile`'s tables
// (with `model` on `device`) give their plans, split by fit_overhead into a share of the operator
// time and a time per num_seqs (at least 0), fitted within `tolerance` (kept in *measured when
// given).
OverheadFit measure_cpu_overhead(perf::Profile& profile, const perf::ModelSpec& model,
                                 const perf::GpuSpec& device, const models::ModelWeights& weights,
                                 const engine::EngineConfig& ec,
                                 const std::vector<int64_t>& wave_sizes, double tolerance,
                                 std::vector<MeasuredSeries>* measured);

// Blocks of the forward bench's KV arena: room for one sequence of the model's whole context,
// or more up to a 256 MiB arena (`num_kv_heads`: one rank's).
int64_t bench_num_blocks(const models::ModelConfig& config, int64_t num_kv_heads,
                         const engine::EngineConfig& ec);

}  // namespace tidal::profile
