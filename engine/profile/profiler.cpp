#include "engine/profile/profiler.h"

#include <chrono>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "base/input_error.h"
#include "engine/model_loading.h"
#include "engine/profile/cpu_target.h"
#include "engine/profile/draft_cost.h"
#include "engine/profile/forward_bench.h"
#include "engine/profile/profile_sections.h"
#include "engine/profile/sweeps.h"
#include "models/quantize_weights.h"
#include "models/tensor_parallel.h"

namespace tidal::profile {
namespace {

using Clock = std::chrono::steady_clock;

// Drafts per sequence the n-gram drafting cost is measured at when the profiled engine config
// does not speculate (the simulator's default k).
constexpr int32_t kDefaultDraftTokens = 4;

}  // namespace

std::string build_commit() {
  return TIDAL_GIT_COMMIT;
}

perf::Profile run_profile(const ProfileOptions& options, const ProgressFn& progress,
                          std::vector<MeasuredSeries>* measured) {
  const Clock::time_point start = Clock::now();
  const engine::EngineConfig& ec = options.engine;
  engine::LoadedModel loaded = engine::load_model(options.model, options.model_seed, "--model");
  const models::ModelConfig config = loaded.weights.config;
  engine::validate(ec, config);
  // Every rank's (quantized) shard: the forward bench runs them all, as the engine does.
  std::vector<models::ModelWeights> shards;  // [tp]
  for (int r = 0; r < ec.tp; ++r) {
    shards.push_back(ec.tp > 1 ? models::shard_weights(loaded.weights, r, ec.tp) : loaded.weights);
    models::quantize_weights(shards.back(), ec.quant);
  }
  const models::ModelWeights& rank0 = shards.front();

  const int64_t num_blocks = bench_num_blocks(config, rank0.shard.num_kv_heads, ec);
  ForwardBench bench(shards, ec.num_threads, ec.kv_dtype, ec.block_size, num_blocks);
  if (options.num_passes < 1) throw InputError("profile: num_passes: must be >= 1");
  const RunForward run = [&](std::span<const perf::SeqWork> batch) {
    return bench.run(batch, options.min_repeats, options.max_repeats, options.target_point_seconds);
  };

  perf::Profile profile = profile_header("tidal-cpu", cpu_model_name(), options.model, config, ec);

  const OperatorSweeps sweeps =
      measure_operators(run, config, options, ec.sampling, options.num_passes, "profile", progress,
                        start, profile, measured);

  // The shared-memory all-reduce as rank 0 saw it inside the forwards of the token sweep,
  // indexed as perf indexes it: tokens x hidden x 2 bytes.
  if (ec.tp > 1) {
    profile.allreduce.source = perf::TimeSource::measured;
    std::vector<int64_t> bytes;  // [num_points]
    for (int64_t t : sweeps.tokens.tokens) bytes.push_back(t * config.hidden_size * 2);
    keep_series(measured, "allreduce", bytes, sweeps.tokens.allreduce_seconds);
    const perf::OperatorTable fitted =
        fitted_table(bytes, sweeps.tokens.allreduce_seconds, perf::OpScope::step,
                     options.max_relative_fit_error);
    profile.allreduce.bytes.assign(fitted.num_tokens.begin(), fitted.num_tokens.end());
    profile.allreduce.seconds = fitted.seconds;
  }

  // CPU overhead: real engine steps minus the operator time of their plans.
  const perf::ModelSpec spec = model_spec_for(config, options.model);
  const OverheadFit overhead = measure_cpu_overhead(
      profile, spec, cpu_device_spec(profile.provenance.device), loaded.weights, ec,
      sweeps.decode.batches, options.max_relative_fit_error, measured);
  progress(fmt::format(
      "profile: CPU overhead over {} engine steps, batch 1..{}; {:+.1f}% of operator time [{:.1f} "
      "s]",
      overhead.num_samples, overhead.max_num_seqs, overhead.share_of_operator_time * 100.0,
      seconds_since(start)));

  // N-gram drafting: one lookup per sequence over the decode grid's contexts, at the config's k.
  const int32_t draft_tokens =
      ec.spec.method == engine::SpecMethod::ngram ? ec.spec.num_spec_tokens : kDefaultDraftTokens;
  const NgramProposeCost propose = fit_ngram_propose(ec.spec, draft_tokens, config.vocab_size,
                                                     sweeps.decode.contexts, options.max_repeats);
  profile.draft = perf::DraftCost{"ngram", draft_tokens, propose.seconds_per_seq,
                                  propose.seconds_per_context_token};
  progress(fmt::format(
      "profile: n-gram lookup at k {}: {:.3f} us + {:.4f} us per context token [{:.1f} s]",
      draft_tokens, propose.seconds_per_seq * 1e6, propose.seconds_per_context_token * 1e6,
      seconds_since(start)));

  profile.provenance.source = fmt::format(
      "tidal profile --backend cpu: {} ({}), tp {}, {} kernel threads per rank, weights {}, KV "
      "{}. Operators timed inside the paged forward with every rank running (rank 0's clock, "
      "TimingBackend; all-reduces include the waits for the other ranks), one "
      "warm-up then {}-{} repeats per point, medians, the median over {} passes of each "
      "sweep; 1-D tables fitted piecewise-linear "
      "within "
      "{}%; residual adds are fused into the norms (add_rms_norm) and measure 0; embedding "
      "includes the "
      "forward's time outside the operators (batch flattening, activation buffers); cpu_overhead = "
      "engine step duration minus the tables' operator time over {} replayed steps, split into "
      "a share of the operator time (median over steps with prefill, beyond the decode steps' "
      "time per batch size) and a time per batch size (decode steps' mean winsorized at p99); "
      "all-reduce bytes = tokens x hidden x 2 "
      "(perf's index; the CPU engine reduces "
      "fp32); draft = one n-gram propose() over synthesized prompts (no match: the whole "
      "context scanned), seconds_per_seq + seconds_per_context_token x context fitted by least "
      "squares over the decode grid's contexts.",
      options.model, loaded.source, ec.tp, ec.num_threads, models::quant_spec_name(ec.quant),
      kernels::kv_dtype_name(ec.kv_dtype), options.min_repeats, options.max_repeats,
      options.num_passes, options.max_relative_fit_error * 100.0, overhead.num_samples);
  perf::validate_profile(profile, "profile");
  return profile;
}

}  // namespace tidal::profile
