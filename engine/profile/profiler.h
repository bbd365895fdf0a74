// `tidal profile --backend cpu`: measures a perf::Profile of one (CPU, model, TP, quantization,
// threads) combination. Operators are timed inside the real paged forward with every
// tensor-parallel rank running as the engine runs them (ForwardBench; rank 0's clock,
// TimingBackend), over grids: num_tokens for the per-token operators and for the shared-memory
// all-reduce (tp > 1, barrier waits included), (chunk, context) for prefill attention, (batch,
// context) for decode attention, batch size for the LM head and sampling; the per-step CPU
// overhead is what real engine steps spend beyond those operators (median over steps); the
// n-gram drafter's cost is a share of the verification step (profile "draft"). Every operator
// point: one warm-up, repeats, their median; every sweep runs num_passes times and keeps each
// point's median over the passes. 1-D tables are fitted piecewise-linear
// (fit_piecewise_linear); attention grids keep their measured values. Grids stop growing once one
// forward exceeds max_point_seconds, so a small model profiles well within the time budget.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/engine_config.h"
#include "perf/profile.h"

namespace tidal::profile {

struct ProfileOptions {
  std::string model;               // preset, config.json or checkpoint folder (engine::load_model)
  uint64_t model_seed = 0;         // random weights when `model` is not a checkpoint
  engine::EngineConfig engine;     // tp, num_threads, quant, kv_dtype, block_size, scheduler
                                   // (limits, policy) and prefix caching of the overhead waves
  int64_t max_num_tokens = 2048;   // token sweep and prefill chunks go up to this (and the
                                   // model's context)
  int64_t max_batch_size = 64;     // decode batches and overhead waves go up to this
  double max_point_seconds = 0.5;  // a sweep stops after a point whose forward takes longer
  double target_point_seconds = 0.05;  // measurement time per point (sets the repeats)
  int min_repeats = 5;
  int max_repeats = 15;
  int num_passes = 3;  // each forward sweep is run this many times; per point the median is kept
  double max_relative_fit_error = 0.03;  // fit_piecewise_linear tolerance
};

// The medians one fitted 1-D table was made from: "operators.<class>", "cpu_overhead" or
// "allreduce", over num_tokens, num_seqs or bytes.
struct MeasuredSeries {
  std::string name;
  std::vector<double> x;        // [num_points]
  std::vector<double> seconds;  // [num_points]
};

// Told what is being measured (one line per grid).
using ProgressFn = std::function<void(const std::string& line)>;

// InputError for a bad model or option (the message names it).
// `measured`, when given, receives the medians behind every fitted table.
perf::Profile run_profile(const ProfileOptions& options, const ProgressFn& progress,
                          std::vector<MeasuredSeries>* measured = nullptr);

// The commit this binary was built from (CMake's TIDAL_GIT_COMMIT), for provenance.
std::string build_commit();

}  // namespace tidal::profile
