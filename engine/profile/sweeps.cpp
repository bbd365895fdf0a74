#include "engine/profile/sweeps.h"

#include <algorithm>
#include <array>
#include <utility>

#include <fmt/format.h>

#include "engine/profile/grids.h"
#include "engine/profile/profile_sections.h"

namespace tidal::profile {
namespace {

using perf::OpClass;

// One point of a forward sweep: the batch and the times of each pass.
struct SweepPoint {
  std::vector<perf::SeqWork> batch;
  std::vector<ForwardTimes> passes;  // [passes run so far]
};

// A sweep after its first pass: the rows it reached and their points, [num_rows, per row].
struct SweepRows {
  std::vector<int64_t> rows;
  std::vector<SweepPoint> points;
};

// Measures the points of each row (`batches_of(row)`) over `rows` until a row's slowest forward
// exceeds the limit, calling after_row(row) after each: the first pass.
template <typename BatchesOf, typename AfterRow>
SweepRows first_pass(const RunForward& run, const std::vector<int64_t>& rows,
                     const BatchesOf& batches_of, const AfterRow& after_row,
                     double max_point_seconds) {
  SweepRows sweep;
  for (int64_t row : rows) {
    double slowest = 0.0;
    for (std::vector<perf::SeqWork>& batch : batches_of(row)) {
      SweepPoint point{std::move(batch), {}};
      point.passes.push_back(run(point.batch));
      slowest = std::max(slowest, point.passes.back().forward_seconds);
      sweep.points.push_back(std::move(point));
    }
    sweep.rows.push_back(row);
    after_row(row);
    if (slowest > max_point_seconds) break;
  }
  return sweep;
}

// Passes 2..num_passes, each over every point of every sweep in turn, so that one point's passes
// lie as far apart in time as the whole profile.
void remaining_passes(std::span<SweepRows* const> sweeps, int num_passes, const RunForward& run) {
  for (int pass = 1; pass < num_passes; ++pass) {
    for (SweepRows* sweep : sweeps) {
      for (SweepPoint& point : sweep->points) point.passes.push_back(run(point.batch));
    }
  }
}

// Per point, the median of each field over its passes.
std::vector<ForwardTimes> medians(const SweepRows& sweep) {
  std::vector<ForwardTimes> times;  // [num points]
  for (const SweepPoint& point : sweep.points) times.push_back(median_times(point.passes));
  return times;
}

// One sequence of T new tokens at context 0, T over token_grid(max_tokens).
SweepRows tokens_first_pass(const RunForward& run, int64_t max_tokens, double max_point_seconds) {
  return first_pass(
      run, token_grid(max_tokens),
      [](int64_t t) {
        return std::vector<std::vector<perf::SeqWork>>{{perf::SeqWork{t, 0}}};
      },
      [](int64_t) {}, max_point_seconds);
}

TokenSweep token_tables(const SweepRows& rows, const std::vector<OpClass>& classes, double layers) {
  TokenSweep sweep;
  sweep.tokens = rows.rows;
  for (const ForwardTimes& times : medians(rows)) {
    for (OpClass c : classes) {
      sweep.seconds[c].push_back(c == OpClass::embedding ? times[c] + times.unattributed_seconds
                                                         : times[c] / layers);
    }
    // Two all-reduces per layer; their time includes the waits for the other ranks.
    sweep.allreduce_seconds.push_back(times[OpClass::allreduce] / (2.0 * layers));
  }
  return sweep;
}

// `batch` sequences of one new token at each context of context_grid(16, max_position / 2) (at
// least 16), batch over powers_of_two(max_batch_size); host sampling timed per batch with
// `sampling_repeats` repeats into *sampling_seconds.
SweepRows decode_first_pass(const RunForward& run, const std::vector<int64_t>& contexts,
                            int64_t max_batch_size, int64_t vocab,
                            const kernels::SamplingParams& sampling, int sampling_repeats,
                            double max_point_seconds, std::vector<double>* sampling_seconds) {
  return first_pass(
      run, powers_of_two(max_batch_size),
      [&](int64_t b) {
        std::vector<std::vector<perf::SeqWork>> row;  // [num_contexts]
        for (int64_t ctx : contexts) {
          row.emplace_back(static_cast<size_t>(b), perf::SeqWork{1, ctx});
        }
        return row;
      },
      [&](int64_t b) {
        sampling_seconds->push_back(time_sampling(b, vocab, sampling, sampling_repeats));
      },
      max_point_seconds);
}

// One sequence's chunk on top of each of `contexts`, chunk over powers_of_two(max_chunk).
SweepRows prefill_first_pass(const RunForward& run, const std::vector<int64_t>& contexts,
                             int64_t max_chunk, double max_point_seconds) {
  return first_pass(
      run, powers_of_two(max_chunk),
      [&](int64_t chunk) {
        std::vector<std::vector<perf::SeqWork>> row;  // [num_contexts]
        for (int64_t ctx : contexts) row.push_back({perf::SeqWork{chunk, ctx}});
        return row;
      },
      [](int64_t) {}, max_point_seconds);
}

}  // namespace

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
  const double max_point_seconds = options.max_point_seconds;
  OperatorSweeps sweeps;

  // First passes, each growing its grid. Per-token operators: one sequence of T new tokens.
  SweepRows token_rows = tokens_first_pass(run, max_tokens, max_point_seconds);
  progress(fmt::format("{}: operators over num_tokens 1..{} ({} points) [{:.1f} s]", label,
                       token_rows.rows.back(), token_rows.rows.size(), seconds_since(start)));
  // Decode attention over (batch, context); LM head and sampling over the batch size.
  DecodeSweep& decode = sweeps.decode;
  decode.contexts = context_grid(16, std::max<int64_t>(16, max_position / 2));
  SweepRows decode_rows =
      decode_first_pass(run, decode.contexts, options.max_batch_size, config.vocab_size, sampling,
                        options.min_repeats, max_point_seconds, &decode.sampling_seconds);
  progress(fmt::format("{}: decode attention over batch 1..{} x context {}..{} [{:.1f} s]", label,
                       decode_rows.rows.back(), decode.contexts.front(), decode.contexts.back(),
                       seconds_since(start)));
  // Prefill attention over (chunk, context): one sequence's chunk on top of its context.
  PrefillSweep& prefill = sweeps.prefill;
  prefill.contexts = {0};
  for (int64_t c : context_grid(16, max_position / 2)) prefill.contexts.push_back(c);
  SweepRows prefill_rows = prefill_first_pass(
      run, prefill.contexts, std::min(max_tokens, max_position - prefill.contexts.back()),
      max_point_seconds);
  progress(fmt::format("{}: prefill attention over chunk 1..{} x context 0..{} [{:.1f} s]", label,
                       prefill_rows.rows.back(), prefill.contexts.back(), seconds_since(start)));
  if (num_passes > 1) {
    const std::array<SweepRows*, 3> all{&token_rows, &decode_rows, &prefill_rows};
    remaining_passes(all, num_passes, run);
    progress(fmt::format(
        "{}: passes 2..{} over all {} points [{:.1f} s]", label, num_passes,
        token_rows.points.size() + decode_rows.points.size() + prefill_rows.points.size(),
        seconds_since(start)));
  }

  const std::vector<OpClass> classes = token_classes(config);
  sweeps.tokens = token_tables(token_rows, classes, layers);
  fit_token_operators(profile, classes, sweeps.tokens.tokens, sweeps.tokens.seconds, tolerance,
                      measured);

  decode.batches = decode_rows.rows;
  const std::vector<ForwardTimes> decode_times = medians(decode_rows);
  for (size_t i = 0; i < decode_times.size(); ++i) {
    decode.attention_seconds.push_back(decode_times[i][OpClass::attention_prefill] / layers);
    if (i % decode.contexts.size() == 0) {
      decode.head_seconds.push_back(decode_times[i][OpClass::lm_head]);
    }
  }
  fit_batch_operators(profile, decode.batches, decode.head_seconds, decode.sampling_seconds,
                      tolerance, measured);

  prefill.chunks = prefill_rows.rows;
  for (const ForwardTimes& times : medians(prefill_rows)) {
    prefill.attention_seconds.push_back(times[OpClass::attention_prefill] / layers);
  }
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
