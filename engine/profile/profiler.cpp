#include "engine/profile/profiler.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "engine/model_loading.h"
#include "engine/profile/cpu_target.h"
#include "engine/profile/draft_cost.h"
#include "engine/profile/forward_bench.h"
#include "engine/profile/grids.h"
#include "engine/profile/piecewise_fit.h"
#include "engine/profile/profile_sections.h"
#include "engine/profile/step_overhead.h"
#include "engine/profile/sweeps.h"
#include "kernels/sampling.h"
#include "models/quantize_weights.h"
#include "models/tensor_parallel.h"
#include "sim/perf/profiled_model.h"
#include "traces/input_error.h"

namespace tidal::profile {
namespace {

using perf::OpClass;
using Clock = std::chrono::steady_clock;

constexpr int64_t kOverheadPromptTokens = 32;
constexpr int64_t kOverheadOutputTokens = 16;
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

  const int64_t max_position = config.max_position_embeddings;
  const int64_t max_tokens = std::max<int64_t>(1, std::min(options.max_num_tokens, max_position));
  const int64_t num_blocks = bench_num_blocks(config, rank0.shard.num_kv_heads, ec);
  ForwardBench bench(shards, ec.num_threads, ec.kv_dtype, ec.block_size, num_blocks);
  const double layers = static_cast<double>(config.num_layers);
  if (options.num_passes < 1) throw InputError("profile: num_passes: must be >= 1");
  const RunForward run = [&](std::span<const perf::SeqWork> batch) {
    return bench.run(batch, options.min_repeats, options.max_repeats, options.target_point_seconds);
  };

  perf::Profile profile = profile_header("tidal-cpu", cpu_model_name(), options.model, config, ec);

  const SweepLimits limits{options.max_point_seconds, options.num_passes};

  // Per-token operators: one sequence of T new tokens at context 0.
  const std::vector<OpClass> classes = token_classes(config);
  const TokenSweep token_sweep = sweep_tokens(run, classes, max_tokens, layers, limits);
  const std::vector<int64_t>& tokens = token_sweep.tokens;
  progress(fmt::format("profile: operators over num_tokens 1..{} ({} points) [{:.1f} s]",
                       tokens.back(), tokens.size(), seconds_since(start)));
  fit_token_operators(profile, classes, tokens, token_sweep.seconds, options.max_relative_fit_error,
                      measured);

  // Decode attention over (batch, context); LM head and sampling over the batch size.
  const DecodeSweep decode =
      sweep_decode(run, max_position, options.max_batch_size, layers, config.vocab_size,
                   ec.sampling, options.min_repeats, limits);
  const std::vector<int64_t>& batches = decode.batches;
  progress(fmt::format("profile: decode attention over batch 1..{} x context {}..{} [{:.1f} s]",
                       batches.back(), decode.contexts.front(), decode.contexts.back(),
                       seconds_since(start)));
  fit_batch_operators(profile, batches, decode.head_seconds, decode.sampling_seconds,
                      options.max_relative_fit_error, measured);

  // Prefill attention over (chunk, context): one sequence's chunk on top of its context.
  const PrefillSweep prefill = sweep_prefill(run, max_position, max_tokens, layers, limits);
  progress(fmt::format("profile: prefill attention over chunk 1..{} x context 0..{} [{:.1f} s]",
                       prefill.chunks.back(), prefill.contexts.back(), seconds_since(start)));
  set_measured_attention(profile, decode, prefill);

  // The shared-memory all-reduce as rank 0 saw it inside the forwards of the token sweep,
  // indexed as sim/perf indexes it: tokens x hidden x 2 bytes.
  if (ec.tp > 1) {
    profile.allreduce.source = perf::TimeSource::measured;
    std::vector<int64_t> bytes;  // [num_points]
    for (int64_t t : tokens) bytes.push_back(t * config.hidden_size * 2);
    keep_series(measured, "allreduce", bytes, token_sweep.allreduce_seconds);
    const perf::OperatorTable fitted = fitted_table(
        bytes, token_sweep.allreduce_seconds, perf::OpScope::step, options.max_relative_fit_error);
    profile.allreduce.bytes.assign(fitted.num_tokens.begin(), fitted.num_tokens.end());
    profile.allreduce.seconds = fitted.seconds;
  }

  // CPU overhead: real engine steps minus the operator time of their plans.
  profile.cpu_overhead.source = perf::TimeSource::measured;
  profile.cpu_overhead.num_seqs = {1};
  profile.cpu_overhead.seconds = {0.0};
  const perf::ModelSpec spec = model_spec_for(config, options.model);
  const std::unique_ptr<perf::StepTimeModel> operator_model = perf::make_profiled_model(
      profile, spec, cpu_device_spec(profile.provenance.device), deployment_for(ec), "profile");
  const std::vector<OverheadSample> samples = measure_step_overhead(
      loaded.weights, ec, *operator_model, batches, kOverheadPromptTokens, kOverheadOutputTokens);
  const int64_t max_overhead_seqs =
      fit_cpu_overhead(profile, samples, options.max_relative_fit_error, measured);
  progress(fmt::format("profile: CPU overhead over {} engine steps, batch 1..{} [{:.1f} s]",
                       samples.size(), max_overhead_seqs, seconds_since(start)));

  // N-gram drafting against the full step model (operators + CPU overhead), at the config's k.
  const std::unique_ptr<perf::StepTimeModel> step_model = perf::make_profiled_model(
      profile, spec, cpu_device_spec(profile.provenance.device), deployment_for(ec), "profile");
  const int32_t draft_tokens =
      ec.spec.method == engine::SpecMethod::ngram ? ec.spec.num_spec_tokens : kDefaultDraftTokens;
  profile.draft =
      perf::DraftCost{"ngram", draft_tokens,
                      ngram_draft_step_ratio(ec.spec, draft_tokens, config.vocab_size, *step_model,
                                             batches, decode.contexts, options.max_repeats)};
  progress(fmt::format("profile: n-gram drafting at k {}: {:.4f} of a step [{:.1f} s]",
                       draft_tokens, profile.draft->step_ratio, seconds_since(start)));

  profile.provenance.source = fmt::format(
      "tidal profile --backend cpu: {} ({}), tp {}, {} kernel threads per rank, weights {}, KV "
      "{}. Operators timed inside the paged forward with every rank running (rank 0's clock, "
      "TimingBackend; all-reduces include the waits for the other ranks), one "
      "warm-up then {}-{} repeats per point, lower quartiles, the least over {} passes of each "
      "sweep; 1-D tables fitted piecewise-linear "
      "within "
      "{}%; residual adds are fused into the norms (add_rms_norm) and measure 0; embedding "
      "includes the "
      "forward's time outside the operators (batch flattening, activation buffers); cpu_overhead = "
      "engine step duration minus the tables' operator time, median per batch size over {} "
      "steps; all-reduce bytes = tokens x hidden x 2 (sim/perf's index; the CPU engine reduces "
      "fp32); draft.step_ratio = n-gram propose() over synthesized prompts x batch / the step "
      "model's verification step, median over the decode grid.",
      options.model, loaded.source, ec.tp, ec.num_threads, models::quant_spec_name(ec.quant),
      kernels::kv_dtype_name(ec.kv_dtype), options.min_repeats, options.max_repeats,
      options.num_passes, options.max_relative_fit_error * 100.0, samples.size());
  perf::validate_profile(profile, "profile");
  return profile;
}

}  // namespace tidal::profile
