#include "engine/profile/cuda_target.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "engine/cuda_ranks.h"
#include "engine/model_loading.h"
#include "engine/profile/cpu_target.h"
#include "engine/profile/forward_bench.h"
#include "engine/profile/piecewise_fit.h"
#include "engine/profile/step_overhead.h"
#include "engine/profile/timing_backend.h"
#include "kernels/sampling.h"
#include "models/paged_forward.h"
#include "models/quantize_weights.h"
#include "sim/perf/profiled_model.h"
#include "traces/input_error.h"

namespace tidal::profile {

void SynchronizingBackend::embedding(const float* table, int64_t hidden, const int32_t* token_ids,
                                     int64_t num_tokens, float* out) {
  inner_.embedding(table, hidden, token_ids, num_tokens, out);
  inner_.memory().synchronize();
}

void SynchronizingBackend::rms_norm(const float* x, const float* weight, int64_t num_rows,
                                    int64_t dim, float eps, float* out) {
  inner_.rms_norm(x, weight, num_rows, dim, eps, out);
  inner_.memory().synchronize();
}

void SynchronizingBackend::add_rms_norm(float* residual, const float* x, const float* weight,
                                        int64_t num_rows, int64_t dim, float eps, float* out) {
  inner_.add_rms_norm(residual, x, weight, num_rows, dim, eps, out);
  inner_.memory().synchronize();
}

void SynchronizingBackend::rope(float* q, float* k, const int32_t* positions, int64_t num_tokens,
                                int64_t num_heads, int64_t num_kv_heads, int64_t head_dim,
                                const float* inv_freq) {
  inner_.rope(q, k, positions, num_tokens, num_heads, num_kv_heads, head_dim, inv_freq);
  inner_.memory().synchronize();
}

void SynchronizingBackend::linear(const float* x, int64_t num_tokens,
                                  const kernels::LinearView& weight, float* y) {
  inner_.linear(x, num_tokens, weight, y);
  inner_.memory().synchronize();
}

void SynchronizingBackend::swiglu(const float* gate, const float* up, int64_t count, float* out) {
  inner_.swiglu(gate, up, count, out);
  inner_.memory().synchronize();
}

void SynchronizingBackend::add(float* y, const float* x, int64_t count) {
  inner_.add(y, x, count);
  inner_.memory().synchronize();
}

void SynchronizingBackend::write_kv(const kernels::KvCacheView& kv, int64_t layer, const float* k,
                                    const float* v, const int64_t* slot_mapping,
                                    int64_t num_tokens) {
  inner_.write_kv(kv, layer, k, v, slot_mapping, num_tokens);
  inner_.memory().synchronize();
}

void SynchronizingBackend::paged_attention(const float* q, const kernels::KvCacheView& kv,
                                           int64_t layer, const kernels::AttentionBatch& batch,
                                           float scale, float* out) {
  inner_.paged_attention(q, kv, layer, batch, scale, out);
  inner_.memory().synchronize();
}

void SynchronizingBackend::softmax(float* x, int64_t num_rows, int64_t num_cols) {
  inner_.softmax(x, num_rows, num_cols);
  inner_.memory().synchronize();
}

void SynchronizingBackend::moe_route(const float* router_logits, int64_t num_tokens,
                                     int64_t num_experts, int64_t top_k, int32_t* expert_ids,
                                     float* expert_weights) {
  inner_.moe_route(router_logits, num_tokens, num_experts, top_k, expert_ids, expert_weights);
  inner_.memory().synchronize();
}

void SynchronizingBackend::gather_rows(const float* src, const int32_t* rows, int64_t num_rows,
                                       int64_t dim, float* out) {
  inner_.gather_rows(src, rows, num_rows, dim, out);
  inner_.memory().synchronize();
}

void SynchronizingBackend::scatter_add_rows(const float* src, const int32_t* rows,
                                            const float* weights, int64_t num_rows, int64_t dim,
                                            float* dst) {
  inner_.scatter_add_rows(src, rows, weights, num_rows, dim, dst);
  inner_.memory().synchronize();
}

perf::GpuSpec cuda_device_spec(const std::string& device_name) {
  perf::GpuSpec spec;
  spec.name = device_name;
  spec.memory_bytes = 80.0 * 1024 * 1024 * 1024;
  spec.hbm_bandwidth_Bps = 3.35e12;
  spec.flops_bf16 = 989e12;
  spec.interconnect_Bps = 450e9;
  spec.pcie_Bps = 25e9;
  spec.source = "nominal H100-class figures (tidal profile measures every section it writes)";
  return spec;
}

namespace {

using perf::OpClass;
using Clock = std::chrono::steady_clock;

constexpr int64_t kArenaBytesBudget = int64_t{256} << 20;  // KV arena of the forward bench
constexpr int64_t kOverheadPromptTokens = 32;
constexpr int64_t kOverheadOutputTokens = 16;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// 1, 2, 3, 4, 6, 8, 12, 16, ... up to `limit` (the CPU profiler's token grid).
std::vector<int64_t> token_grid(int64_t limit) {
  std::vector<int64_t> grid;
  for (int64_t p = 1; p <= limit; p *= 2) {
    grid.push_back(p);
    if (p >= 2 && p + p / 2 <= limit) grid.push_back(p + p / 2);
  }
  std::sort(grid.begin(), grid.end());
  return grid;
}

std::vector<int64_t> powers_of_two(int64_t limit) {
  std::vector<int64_t> grid;
  for (int64_t p = 1; p <= limit; p *= 2) grid.push_back(p);
  return grid;
}

// {first, 4 * first, 16 * first, ...} up to `limit`.
std::vector<int64_t> context_grid(int64_t first, int64_t limit) {
  std::vector<int64_t> grid;
  for (int64_t c = first; c <= limit; c *= 4) grid.push_back(c);
  return grid;
}

std::string utc_date() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
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

std::vector<OpClass> token_classes(const models::ModelConfig& config) {
  std::vector<OpClass> classes{OpClass::embedding, OpClass::norm,   OpClass::qkv_proj,
                               OpClass::rope,      OpClass::o_proj, OpClass::residual_add};
  if (config.is_moe()) {
    classes.insert(classes.end(), {OpClass::moe_router, OpClass::moe_experts});
  } else {
    classes.insert(classes.end(), {OpClass::mlp_up_gate, OpClass::mlp_act, OpClass::mlp_down});
  }
  return classes;
}

// Seconds of sampling one token for each of num_seqs sequences on the host (the engine copies
// the logits back and samples there on every backend).
double time_sampling(int64_t num_seqs, int64_t vocab, const kernels::SamplingParams& params,
                     int repeats) {
  std::vector<float> logits(static_cast<size_t>(num_seqs * vocab));  // [num_seqs, vocab]
  for (size_t i = 0; i < logits.size(); ++i) {
    logits[i] = static_cast<float>((i * 2654435761u) % 1000) * 1e-3f;
  }
  kernels::SamplingRng rng(1);
  std::vector<double> seconds;
  int64_t checksum = 0;
  for (int r = 0; r <= repeats; ++r) {
    const auto start = Clock::now();
    for (int64_t s = 0; s < num_seqs; ++s) {
      checksum += kernels::sample(logits.data() + s * vocab, vocab, params, rng);
    }
    if (r > 0) seconds.push_back(seconds_since(start));
  }
  return checksum >= 0 ? median(seconds) : 0.0;
}

// The paged forward of GPU 0 on synthetic batches, every operator timed (see the header).
class CudaForwardBench {
 public:
  CudaForwardBench(const models::ModelWeights& weights, const engine::EngineConfig& ec,
                   int64_t num_blocks)
      : weights_(weights) {
    engine::ExecutorConfig config;
    config.backend = engine::BackendKind::cuda;
    config.quant = ec.quant;
    config.kv_dtype = ec.kv_dtype;
    config.block_size = ec.block_size;
    config.num_gpu_blocks = num_blocks;
    const models::ModelWeights* shard = &weights;
    group_ = engine::make_cuda_rank_group({&shard, 1}, config);
    engine::RankDevice& device = group_->rank(0);
    sync_ = std::make_unique<SynchronizingBackend>(device.backend());
    timing_ = std::make_unique<TimingBackend>(*sync_, weights.config);
    model_ = std::make_unique<models::PagedModel>(
        device.weights(), *timing_, group_->communicator(0), device.backend().memory());
    idle_sync_seconds_ = idle_sync_seconds();
  }

  ForwardTimes run(std::span<const perf::SeqWork> work, const ProfileOptions& o) {
    const models::ForwardBatch batch = make_batch(work);
    const kernels::KvCacheView kv = group_->rank(0).kv_view();
    auto once = [&] {
      timing_->reset();
      const auto start = Clock::now();
      model_->forward(batch, kv);
      return seconds_since(start);
    };
    const double warm_up = once();
    const int num_repeats =
        std::clamp(static_cast<int>(std::ceil(o.target_point_seconds / std::max(warm_up, 1e-9))),
                   o.min_repeats, o.max_repeats);
    std::vector<std::vector<double>> per_class(perf::kNumOpClasses);  // [class][repeat]
    std::vector<double> walls;                                        // [repeat]
    std::vector<double> unattributed;                                 // [repeat]
    for (int r = 0; r < num_repeats; ++r) {
      const double wall = once();
      double attributed = 0.0;
      for (int c = 0; c < perf::kNumOpClasses; ++c) {
        const auto op = static_cast<OpClass>(c);
        const double seconds =
            std::max(0.0, static_cast<double>(timing_->nanoseconds(op)) * 1e-9 -
                              idle_sync_seconds_ * static_cast<double>(timing_->num_calls(op)));
        per_class[static_cast<size_t>(c)].push_back(seconds);
        attributed += seconds;
      }
      walls.push_back(wall);
      unattributed.push_back(wall - attributed);
    }
    ForwardTimes times;
    for (int c = 0; c < perf::kNumOpClasses; ++c) {
      times.seconds[static_cast<size_t>(c)] = lower_quartile(per_class[static_cast<size_t>(c)]);
    }
    times.forward_seconds = lower_quartile(walls);
    times.unattributed_seconds = std::max(0.0, lower_quartile(unattributed));
    times.num_repeats = num_repeats;
    return times;
  }

 private:
  // Median seconds of a synchronize on an idle stream (plus the clock reads around it).
  double idle_sync_seconds() {
    kernels::BackendMemory& memory = group_->rank(0).backend().memory();
    std::vector<double> seconds;  // [repeats]
    for (int i = 0; i < 201; ++i) {
      const auto start = Clock::now();
      memory.synchronize();
      seconds.push_back(seconds_since(start));
    }
    return median(seconds);
  }

  // Each sequence's new tokens on top of its context; distinct blocks while the arena has room.
  models::ForwardBatch make_batch(std::span<const perf::SeqWork> work) const {
    const kernels::KvCacheSpec& spec = group_->rank(0).kv_spec();
    const int64_t vocab = weights_.config.vocab_size;
    models::ForwardBatch batch;
    int64_t next_block = 0;
    for (size_t s = 0; s < work.size(); ++s) {
      models::SequenceInput seq;
      const int64_t num_positions = work[s].num_context_tokens + work[s].num_new_tokens;
      for (int64_t b = 0; b < (num_positions + spec.block_size - 1) / spec.block_size; ++b) {
        seq.block_table.push_back(static_cast<int32_t>(next_block++ % spec.num_blocks));
      }
      for (int64_t i = 0; i < work[s].num_new_tokens; ++i) {
        const int64_t position = work[s].num_context_tokens + i;
        seq.token_ids.push_back(
            static_cast<int32_t>((position * 7919 + static_cast<int64_t>(s) * 31) % vocab));
        seq.positions.push_back(static_cast<int32_t>(position));
        seq.slot_mapping.push_back(
            int64_t{seq.block_table[static_cast<size_t>(position / spec.block_size)]} *
                spec.block_size +
            position % spec.block_size);
      }
      batch.sequences.push_back(std::move(seq));
    }
    return batch;
  }

  const models::ModelWeights& weights_;
  std::unique_ptr<engine::RankGroup> group_;
  std::unique_ptr<SynchronizingBackend> sync_;
  std::unique_ptr<TimingBackend> timing_;
  std::unique_ptr<models::PagedModel> model_;
  double idle_sync_seconds_ = 0.0;
};

}  // namespace

perf::Profile run_cuda_profile(const ProfileOptions& options, const ProgressFn& progress,
                               std::vector<MeasuredSeries>* measured) {
  const Clock::time_point start = Clock::now();
  auto keep = [&](std::string name, const auto& xs, const std::vector<double>& ys) {
    if (measured != nullptr) {
      measured->push_back({std::move(name), std::vector<double>(xs.begin(), xs.end()), ys});
    }
  };
  engine::EngineConfig ec = options.engine;
  ec.backend = engine::BackendKind::cuda;
  engine::LoadedModel loaded = engine::load_model(options.model, options.model_seed, "--model");
  const models::ModelConfig config = loaded.weights.config;
  engine::validate(ec, config);
  if (ec.tp != 1) {
    throw InputError(
        "--tp: the CUDA profile measures one GPU (tp 1); the NCCL all-reduce is not "
        "profiled yet (got " +
        std::to_string(ec.tp) + ")");
  }
  models::ModelWeights rank0 = loaded.weights;
  models::quantize_weights(rank0, ec.quant);

  const int64_t max_position = config.max_position_embeddings;
  const int64_t max_tokens = std::max<int64_t>(1, std::min(options.max_num_tokens, max_position));
  const int64_t kv_bytes_per_token = 2 * config.num_layers * config.num_kv_heads * config.head_dim *
                                     static_cast<int64_t>(kernels::kv_element_bytes(ec.kv_dtype));
  const int64_t num_blocks = std::max<int64_t>(
      (max_position + ec.block_size - 1) / ec.block_size + 1,
      kArenaBytesBudget / std::max<int64_t>(1, kv_bytes_per_token * ec.block_size));
  CudaForwardBench bench(rank0, ec, num_blocks);
  const double layers = static_cast<double>(config.num_layers);
  auto run = [&](std::span<const perf::SeqWork> batch) { return bench.run(batch, options); };

  perf::Profile profile;
  profile.provenance.backend = "tidal-cuda";
  profile.provenance.device = engine::cuda_device_name(0);
  profile.provenance.date = utc_date();
  profile.provenance.commit = build_commit();
  profile.model = {options.model,
                   config.hidden_size,
                   config.num_heads,
                   config.num_kv_heads,
                   config.intermediate_size,
                   config.vocab_size,
                   true};
  profile.tp = ec.tp;
  profile.weight_dtype = weight_dtype_for(ec.quant);
  profile.kv_dtype = kv_dtype_for(ec.kv_dtype);

  // Per-token operators: one sequence of T new tokens at context 0.
  const std::vector<OpClass> classes = token_classes(config);
  std::vector<int64_t> tokens;                // [num_points]
  std::map<OpClass, std::vector<double>> op;  // [class][num_points]
  for (int64_t t : token_grid(max_tokens)) {
    const perf::SeqWork seq{t, 0};
    const ForwardTimes times = run({&seq, 1});
    tokens.push_back(t);
    for (OpClass c : classes) {
      op[c].push_back(c == OpClass::embedding ? times[c] + times.unattributed_seconds
                                              : times[c] / layers);
    }
    if (times.forward_seconds > options.max_point_seconds) break;
  }
  progress(fmt::format("profile (cuda): operators over num_tokens 1..{} ({} points) [{:.1f} s]",
                       tokens.back(), tokens.size(), seconds_since(start)));
  for (OpClass c : classes) {
    keep(fmt::format("operators.{}", perf::op_class_name(c)), tokens, op[c]);
    profile.operators[c] = fitted_table(
        tokens, op[c], c == OpClass::embedding ? perf::OpScope::step : perf::OpScope::layer,
        options.max_relative_fit_error);
  }

  // Decode attention over (batch, context); LM head and sampling over the batch size.
  const std::vector<int64_t> decode_contexts =
      context_grid(16, std::max<int64_t>(16, max_position / 2));
  std::vector<int64_t> batches;          // [num_rows]
  std::vector<double> decode_seconds;    // [num_rows, num_contexts]
  std::vector<double> head_seconds;      // [num_rows]
  std::vector<double> sampling_seconds;  // [num_rows]
  for (int64_t b : powers_of_two(options.max_batch_size)) {
    double slowest = 0.0;
    for (int64_t ctx : decode_contexts) {
      const std::vector<perf::SeqWork> batch(static_cast<size_t>(b), perf::SeqWork{1, ctx});
      const ForwardTimes times = run(batch);
      decode_seconds.push_back(times[OpClass::attention_prefill] / layers);
      if (ctx == decode_contexts.front()) head_seconds.push_back(times[OpClass::lm_head]);
      slowest = std::max(slowest, times.forward_seconds);
    }
    batches.push_back(b);
    sampling_seconds.push_back(
        time_sampling(b, config.vocab_size, ec.sampling, options.min_repeats));
    if (slowest > options.max_point_seconds) break;
  }
  progress(fmt::format(
      "profile (cuda): decode attention over batch 1..{} x context {}..{} [{:.1f} s]",
      batches.back(), decode_contexts.front(), decode_contexts.back(), seconds_since(start)));
  keep("operators.lm_head", batches, head_seconds);
  keep("operators.sampling", batches, sampling_seconds);
  profile.operators[OpClass::lm_head] =
      fitted_table(batches, head_seconds, perf::OpScope::step, options.max_relative_fit_error);
  profile.operators[OpClass::sampling] =
      fitted_table(batches, sampling_seconds, perf::OpScope::step, options.max_relative_fit_error);

  // Prefill attention over (chunk, context).
  std::vector<int64_t> prefill_contexts{0};
  for (int64_t c : context_grid(16, max_position / 2)) prefill_contexts.push_back(c);
  const int64_t max_chunk = std::min(max_tokens, max_position - prefill_contexts.back());
  std::vector<int64_t> chunks;          // [num_rows]
  std::vector<double> prefill_seconds;  // [num_rows, num_contexts]
  for (int64_t chunk : powers_of_two(max_chunk)) {
    double slowest = 0.0;
    for (int64_t ctx : prefill_contexts) {
      const perf::SeqWork seq{chunk, ctx};
      const ForwardTimes times = run({&seq, 1});
      prefill_seconds.push_back(times[OpClass::attention_prefill] / layers);
      slowest = std::max(slowest, times.forward_seconds);
    }
    chunks.push_back(chunk);
    if (slowest > options.max_point_seconds) break;
  }
  progress(
      fmt::format("profile (cuda): prefill attention over chunk 1..{} x context 0..{} [{:.1f} s]",
                  chunks.back(), prefill_contexts.back(), seconds_since(start)));
  profile.attention_source = perf::TimeSource::measured;
  profile.attention.prefill_chunk_tokens = chunks;
  profile.attention.prefill_context_tokens = prefill_contexts;
  profile.attention.prefill_seconds = prefill_seconds;
  profile.attention.decode_batch_sizes = batches;
  profile.attention.decode_context_tokens = decode_contexts;
  profile.attention.decode_seconds = decode_seconds;

  // CPU overhead: real CUDA engine steps minus the operator time of their plans.
  profile.cpu_overhead.source = perf::TimeSource::measured;
  profile.cpu_overhead.num_seqs = {1};
  profile.cpu_overhead.seconds = {0.0};
  const perf::ModelSpec spec = model_spec_for(config, options.model);
  const std::unique_ptr<perf::StepTimeModel> operator_model = perf::make_profiled_model(
      profile, spec, cuda_device_spec(profile.provenance.device), deployment_for(ec), "profile");
  engine::EngineConfig overhead_config = ec;
  overhead_config.num_gpu_blocks = num_blocks;
  const std::vector<OverheadSample> samples =
      measure_step_overhead(loaded.weights, overhead_config, *operator_model, batches,
                            kOverheadPromptTokens, kOverheadOutputTokens);
  std::map<int64_t, std::vector<double>> by_seqs;  // num_seqs -> residual seconds
  for (const OverheadSample& s : samples) by_seqs[s.num_seqs].push_back(s.seconds);
  std::vector<int64_t> overhead_seqs;
  std::vector<double> overhead_seconds;
  for (const auto& [num_seqs, residuals] : by_seqs) {
    overhead_seqs.push_back(num_seqs);
    overhead_seconds.push_back(std::max(0.0, median(residuals)));
  }
  keep("cpu_overhead", overhead_seqs, overhead_seconds);
  const perf::OperatorTable overhead = fitted_table(
      overhead_seqs, overhead_seconds, perf::OpScope::step, options.max_relative_fit_error);
  profile.cpu_overhead.num_seqs = overhead.num_tokens;
  profile.cpu_overhead.seconds = overhead.seconds;
  progress(fmt::format("profile (cuda): CPU overhead over {} engine steps, batch 1..{} [{:.1f} s]",
                       samples.size(), overhead_seqs.back(), seconds_since(start)));

  profile.provenance.source = fmt::format(
      "tidal profile --backend cuda: {} ({}) on {}, tp 1, weights {}, KV {}. Operators timed "
      "inside the paged forward on the GPU (TimingBackend over a backend that synchronizes the "
      "stream after every operator, less the median idle synchronize), one warm-up then {}-{} "
      "repeats per point, lower quartiles; 1-D tables fitted piecewise-linear within {}%; "
      "residual adds are fused into the norms and measure 0; embedding includes the forward's "
      "time outside the operators (batch flattening, index-array uploads, the logits copy back); "
      "sampling is the engine's host sampling; cpu_overhead = CUDA engine step duration minus "
      "the tables' operator time, median per batch size over {} steps.",
      options.model, loaded.source, profile.provenance.device, models::quant_spec_name(ec.quant),
      kernels::kv_dtype_name(ec.kv_dtype), options.min_repeats, options.max_repeats,
      options.max_relative_fit_error * 100.0, samples.size());
  perf::validate_profile(profile, "profile");
  return profile;
}

}  // namespace tidal::profile
