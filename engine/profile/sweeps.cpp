#include "engine/profile/sweeps.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "engine/profile/grids.h"
#include "engine/profile/profile_sections.h"

namespace tidal::profile {
namespace {

using perf::OpClass;

// One point of a forward sweep: the batch and its times (after remeasure: medians of passes).
struct SweepPoint {
  std::vector<perf::SeqWork> batch;
  ForwardTimes times;
};

// Runs every point of `points` again, num_passes - 1 more passes over the whole list, keeping per
// field the median of its passes (median_times).
void remeasure(std::vector<SweepPoint>& points, int num_passes, const RunForward& run) {
  std::vector<std::vector<ForwardTimes>> passes(points.size());  // [points, num_passes]
  for (size_t i = 0; i < points.size(); ++i) passes[i].push_back(points[i].times);
  for (int pass = 1; pass < num_passes; ++pass) {
    for (size_t i = 0; i < points.size(); ++i) passes[i].push_back(run(points[i].batch));
  }
  for (size_t i = 0; i < points.size(); ++i) points[i].times = median_times(passes[i]);
}

// Measures the points of each row (`batches_of(row)`) over `rows` until a row's slowest forward
// exceeds the limit, calling after_row(row) after each; then the remaining passes. Returns the
// rows measured and their points, [num_rows, points per row].
template <typename BatchesOf, typename AfterRow>
std::pair<std::vector<int64_t>, std::vector<SweepPoint>> sweep_rows(
    const RunForward& run, const std::vector<int64_t>& rows, const BatchesOf& batches_of,
    const AfterRow& after_row, const SweepLimits& limits) {
  std::vector<int64_t> measured_rows;  // [num_rows]
  std::vector<SweepPoint> points;      // [num_rows, points per row]
  for (int64_t row : rows) {
    double slowest = 0.0;
    for (std::vector<perf::SeqWork>& batch : batches_of(row)) {
      SweepPoint point{std::move(batch), {}};
      point.times = run(point.batch);
      slowest = std::max(slowest, point.times.forward_seconds);
      points.push_back(std::move(point));
    }
    measured_rows.push_back(row);
    after_row(row);
    if (slowest > limits.max_point_seconds) break;
  }
  remeasure(points, limits.num_passes, run);
  return {std::move(measured_rows), std::move(points)};
}

}  // namespace

TokenSweep sweep_tokens(const RunForward& run, const std::vector<OpClass>& classes,
                        int64_t max_tokens, double layers, const SweepLimits& limits) {
  auto [tokens, points] = sweep_rows(
      run, token_grid(max_tokens),
      [](int64_t t) {
        return std::vector<std::vector<perf::SeqWork>>{{perf::SeqWork{t, 0}}};
      },
      [](int64_t) {}, limits);
  TokenSweep sweep;
  sweep.tokens = std::move(tokens);
  for (const SweepPoint& point : points) {
    const ForwardTimes& times = point.times;
    for (OpClass c : classes) {
      sweep.seconds[c].push_back(c == OpClass::embedding ? times[c] + times.unattributed_seconds
                                                         : times[c] / layers);
    }
    // Two all-reduces per layer; their time includes the waits for the other ranks.
    sweep.allreduce_seconds.push_back(times[OpClass::allreduce] / (2.0 * layers));
  }
  return sweep;
}

DecodeSweep sweep_decode(const RunForward& run, int64_t max_position, int64_t max_batch_size,
                         double layers, int64_t vocab, const kernels::SamplingParams& sampling,
                         int sampling_repeats, const SweepLimits& limits) {
  const std::vector<int64_t> contexts = context_grid(16, std::max<int64_t>(16, max_position / 2));
  DecodeSweep sweep;
  sweep.contexts = contexts;
  auto [batches, points] = sweep_rows(
      run, powers_of_two(max_batch_size),
      [&](int64_t b) {
        std::vector<std::vector<perf::SeqWork>> row;  // [num_contexts]
        for (int64_t ctx : contexts) {
          row.emplace_back(static_cast<size_t>(b), perf::SeqWork{1, ctx});
        }
        return row;
      },
      [&](int64_t b) {
        sweep.sampling_seconds.push_back(time_sampling(b, vocab, sampling, sampling_repeats));
      },
      limits);
  sweep.batches = std::move(batches);
  for (size_t i = 0; i < points.size(); ++i) {
    const ForwardTimes& times = points[i].times;
    sweep.attention_seconds.push_back(times[OpClass::attention_prefill] / layers);
    if (i % contexts.size() == 0) sweep.head_seconds.push_back(times[OpClass::lm_head]);
  }
  return sweep;
}

PrefillSweep sweep_prefill(const RunForward& run, int64_t max_position, int64_t max_tokens,
                           double layers, const SweepLimits& limits) {
  std::vector<int64_t> contexts{0};
  for (int64_t c : context_grid(16, max_position / 2)) contexts.push_back(c);
  const int64_t max_chunk = std::min(max_tokens, max_position - contexts.back());
  PrefillSweep sweep;
  sweep.contexts = contexts;
  auto [chunks, points] = sweep_rows(
      run, powers_of_two(max_chunk),
      [&](int64_t chunk) {
        std::vector<std::vector<perf::SeqWork>> row;  // [num_contexts]
        for (int64_t ctx : contexts) row.push_back({perf::SeqWork{chunk, ctx}});
        return row;
      },
      [](int64_t) {}, limits);
  sweep.chunks = std::move(chunks);
  for (const SweepPoint& point : points) {
    sweep.attention_seconds.push_back(point.times[OpClass::attention_prefill] / layers);
  }
  return sweep;
}

OperatorSweeps measure_operators(const RunForward& run, const models::ModelConfig& config,
                                 const ProfileOptions& options,
                                 const kernels::SamplingParams& sampling, int num_passes,
                                 const std::string& label, const ProgressFn& progress,
                                 std::chrono::steady_clock::time_point start,
                                 perf::Profile& profile, std::vector<MeasuredSeries>* measured) {
  const int64_t max_position = config.max_position_embeddings;
  const int64_t max_tokens = std::max<int64_t>(1, std::min(options.max_num_tokens, max_position));
  const double layers = static_cast<double>(config.num_layers);
  const double tolerance = options.max_relative_fit_error;
  const SweepLimits limits{options.max_point_seconds, num_passes};
  OperatorSweeps sweeps;

  // Per-token operators: one sequence of T new tokens at context 0.
  const std::vector<OpClass> classes = token_classes(config);
  sweeps.tokens = sweep_tokens(run, classes, max_tokens, layers, limits);
  const std::vector<int64_t>& tokens = sweeps.tokens.tokens;
  progress(fmt::format("{}: operators over num_tokens 1..{} ({} points) [{:.1f} s]", label,
                       tokens.back(), tokens.size(), seconds_since(start)));
  fit_token_operators(profile, classes, tokens, sweeps.tokens.seconds, tolerance, measured);

  // Decode attention over (batch, context); LM head and sampling over the batch size.
  sweeps.decode = sweep_decode(run, max_position, options.max_batch_size, layers, config.vocab_size,
                               sampling, options.min_repeats, limits);
  const DecodeSweep& decode = sweeps.decode;
  progress(fmt::format("{}: decode attention over batch 1..{} x context {}..{} [{:.1f} s]", label,
                       decode.batches.back(), decode.contexts.front(), decode.contexts.back(),
                       seconds_since(start)));
  fit_batch_operators(profile, decode.batches, decode.head_seconds, decode.sampling_seconds,
                      tolerance, measured);

  // Prefill attention over (chunk, context): one sequence's chunk on top of its context.
  sweeps.prefill = sweep_prefill(run, max_position, max_tokens, layers, limits);
  const PrefillSweep& prefill = sweeps.prefill;
  progress(fmt::format("{}: prefill attention over chunk 1..{} x context 0..{} [{:.1f} s]", label,
                       prefill.chunks.back(), prefill.contexts.back(), seconds_since(start)));
  profile.attention_source = perf::TimeSource::measured;
  profile.attention.prefill_chunk_tokens = prefill.chunks;
  profile.attention.prefill_context_tokens = prefill.contexts;
  profile.attention.prefill_seconds = prefill.attention_seconds;
  profile.attention.decode_batch_sizes = decode.batches;
  profile.attention.decode_context_tokens = decode.contexts;
  profile.attention.decode_seconds = decode.attention_seconds;
  return sweeps;
}

}  // namespace tidal::profile
