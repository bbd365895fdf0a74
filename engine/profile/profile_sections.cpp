#include "engine/profile/profile_sections.h"

#include <algorithm>
#include <ctime>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "engine/profile/cpu_target.h"
#include "engine/profile/overhead_fit.h"
#include "engine/profile/piecewise_fit.h"
#include "engine/profile/step_overhead.h"
#include "kernels/kv_cache.h"
#include "perf/profiled_model.h"

namespace tidal::profile {

using perf::OpClass;

namespace {

constexpr int64_t kArenaBytesBudget = int64_t{256} << 20;  // KV arena of the forward bench
// The requests of the CPU overhead waves.
constexpr int64_t kOverheadPromptTokens = 32;
constexpr int64_t kOverheadOutputTokens = 16;
constexpr int kOverheadWaves = 8;  // waves of each size

}  // namespace

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string utc_date() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

void keep_series(std::vector<MeasuredSeries>* measured, std::string name,
                 const std::vector<int64_t>& xs, const std::vector<double>& ys) {
  if (measured != nullptr) {
    measured->push_back({std::move(name), std::vector<double>(xs.begin(), xs.end()), ys});
  }
}

perf::OperatorTable fitted_table(const std::vector<int64_t>& xs, const std::vector<double>& ys,
                                 perf::OpScope scope, double tolerance) {
  const std::vector<double> x(xs.begin(), xs.end());
  const PiecewiseLinear fit = fit_piecewise_linear(x, ys, tolerance);
  perf::OperatorTable table;
  table.scope = scope;
  table.source = perf::TimeSource::measured;
  for (size_t k = 0; k < fit.knots.size(); ++k) {
    table.num_tokens.push_back(static_cast<int64_t>(fit.knots[k]));
    table.seconds.push_back(fit.values[k]);
  }
  return table;
}

perf::Profile profile_header(const std::string& backend, const std::string& device,
                             const std::string& model_name, const models::ModelConfig& config,
                             const engine::EngineConfig& ec) {
  perf::Profile profile;
  profile.provenance.backend = backend;
  profile.provenance.device = device;
  profile.provenance.date = utc_date();
  profile.provenance.commit = build_commit();
  profile.model = {model_name,
                   config.hidden_size,
                   config.num_heads,
                   config.num_kv_heads,
                   config.intermediate_size,
                   config.vocab_size,
                   true};
  profile.tp = ec.tp;
  profile.weight_dtype = weight_dtype_for(ec.quant);
  profile.kv_dtype = kv_dtype_for(ec.kv_dtype);
  return profile;
}

double time_sampling(int64_t num_seqs, int64_t vocab, const kernels::SamplingParams& params,
                     int repeats) {
  std::vector<float> logits(static_cast<size_t>(num_seqs * vocab));  // [num_seqs, vocab]
  for (size_t i = 0; i < logits.size(); ++i) {
    logits[i] = static_cast<float>((i * 2654435761u) % 1000) * 1e-3f;
  }
  kernels::SamplingRng rng(1);
  std::vector<double> seconds;  // [repeats]
  int64_t checksum = 0;
  for (int r = 0; r <= repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (int64_t s = 0; s < num_seqs; ++s) {
      checksum += kernels::sample(logits.data() + s * vocab, vocab, params, rng);
    }
    if (r > 0) seconds.push_back(seconds_since(start));
  }
  return checksum >= 0 ? median(seconds) : 0.0;
}

void fit_token_operators(perf::Profile& profile, const std::vector<OpClass>& classes,
                         const std::vector<int64_t>& tokens,
                         const std::map<OpClass, std::vector<double>>& seconds, double tolerance,
                         std::vector<MeasuredSeries>* measured) {
  for (OpClass c : classes) {
    const std::vector<double>& ys = seconds.at(c);
    keep_series(measured, fmt::format("operators.{}", perf::op_class_name(c)), tokens, ys);
    profile.operators[c] = fitted_table(
        tokens, ys, c == OpClass::embedding ? perf::OpScope::step : perf::OpScope::layer,
        tolerance);
  }
}

void fit_batch_operators(perf::Profile& profile, const std::vector<int64_t>& batches,
                         const std::vector<double>& head_seconds,
                         const std::vector<double>& sampling_seconds, double tolerance,
                         std::vector<MeasuredSeries>* measured) {
  keep_series(measured, "operators.lm_head", batches, head_seconds);
  keep_series(measured, "operators.sampling", batches, sampling_seconds);
  profile.operators[OpClass::lm_head] =
      fitted_table(batches, head_seconds, perf::OpScope::step, tolerance);
  profile.operators[OpClass::sampling] =
      fitted_table(batches, sampling_seconds, perf::OpScope::step, tolerance);
}

OverheadFit measure_cpu_overhead(perf::Profile& profile, const perf::ModelSpec& model,
                                 const perf::GpuSpec& device, const models::ModelWeights& weights,
                                 const engine::EngineConfig& ec,
                                 const std::vector<int64_t>& wave_sizes, double tolerance,
                                 std::vector<MeasuredSeries>* measured) {
  // A zero placeholder, so that the operator-only step model can be built from the profile.
  profile.cpu_overhead.source = perf::TimeSource::measured;
  profile.cpu_overhead.num_seqs = {1};
  profile.cpu_overhead.seconds = {0.0};
  const std::unique_ptr<perf::StepTimeModel> operator_model =
      perf::make_profiled_model(profile, model, device, deployment_for(ec), "profile");
  const std::vector<OverheadSample> samples =
      measure_step_overhead(weights, ec, *operator_model, wave_sizes, kOverheadWaves,
                            kOverheadPromptTokens, kOverheadOutputTokens);
  const OverheadModel fit = fit_overhead(samples);
  keep_series(measured, "cpu_overhead", fit.num_seqs, fit.seconds);
  const perf::OperatorTable overhead =
      fitted_table(fit.num_seqs, fit.seconds, perf::OpScope::step, tolerance);
  profile.cpu_overhead.num_seqs = overhead.num_tokens;
  profile.cpu_overhead.seconds = overhead.seconds;
  profile.cpu_overhead.share_of_operator_time = fit.share_of_operator_time;
  return {samples.size(), fit.num_seqs.back(), fit.share_of_operator_time};
}

int64_t bench_num_blocks(const models::ModelConfig& config, int64_t num_kv_heads,
                         const engine::EngineConfig& ec) {
  const int64_t max_position = config.max_position_embeddings;
  const int64_t kv_bytes_per_token = 2 * config.num_layers * num_kv_heads * config.head_dim *
                                     static_cast<int64_t>(kernels::kv_element_bytes(ec.kv_dtype));
  return std::max<int64_t>(
      (max_position + ec.block_size - 1) / ec.block_size + 1,
      kArenaBytesBudget / std::max<int64_t>(1, kv_bytes_per_token * ec.block_size));
}

}  // namespace tidal::profile
