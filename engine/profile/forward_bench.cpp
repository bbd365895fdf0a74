#include "engine/profile/forward_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "engine/profile/piecewise_fit.h"
#include "engine/profile/profile_sections.h"
#include "engine/profile/timing_backend.h"
#include "engine/shm_communicator.h"
#include "models/communicator.h"

namespace tidal::profile {
namespace {

// Rank 0's communicator with its all-reduces timed (charged to OpClass::allreduce).
class TimedCommunicator final : public models::Communicator {
 public:
  TimedCommunicator(models::Communicator& inner, TimingBackend& timing)
      : inner_(inner), timing_(timing) {}
  int rank() const override { return inner_.rank(); }
  int world_size() const override { return inner_.world_size(); }
  void all_reduce_sum(float* buf, size_t count) override {
    timing_.time_all_reduce(inner_, buf, count);
  }

 private:
  models::Communicator& inner_;
  TimingBackend& timing_;
};

kernels::KvCacheSpec arena_spec(const models::ModelWeights& weights, kernels::KvDType dtype,
                                int32_t block_size, int64_t num_blocks) {
  kernels::KvCacheSpec spec;
  spec.num_layers = weights.config.num_layers;
  spec.num_blocks = num_blocks;
  spec.block_size = block_size;
  spec.num_kv_heads = weights.shard.num_kv_heads;
  spec.head_dim = weights.config.head_dim;
  spec.dtype = dtype;
  return spec;
}

// Seconds of one steady_clock::now(): the median over batches of consecutive reads.
double clock_read_seconds() {
  constexpr int kReadsPerBatch = 1000;
  std::vector<double> per_read;  // [batches]
  for (int batch = 0; batch < 15; ++batch) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kReadsPerBatch; ++i) {
      [[maybe_unused]] volatile auto t = std::chrono::steady_clock::now();
    }
    per_read.push_back(seconds_since(start) / kReadsPerBatch);
  }
  return median(per_read);
}

}  // namespace

ForwardTimes median_times(std::span<const ForwardTimes> passes) {
  ForwardTimes out;
  std::vector<double> values;  // [passes]
  auto median_of = [&](auto field) {
    values.clear();
    for (const ForwardTimes& t : passes) values.push_back(field(t));
    return median(values);
  };
  for (size_t c = 0; c < out.seconds.size(); ++c)
    out.seconds[c] = median_of([c](const ForwardTimes& t) { return t.seconds[c]; });
  out.forward_seconds = median_of([](const ForwardTimes& t) { return t.forward_seconds; });
  out.unattributed_seconds =
      median_of([](const ForwardTimes& t) { return t.unattributed_seconds; });
  for (const ForwardTimes& t : passes) out.num_repeats += t.num_repeats;
  return out;
}

ForwardBench::Rank::Rank(const models::ModelWeights& w, int num_threads,
                         const kernels::KvCacheSpec& spec)
    : weights(w), cpu(num_threads), arena(spec) {}

ForwardBench::ForwardBench(std::span<const models::ModelWeights> rank_weights, int num_threads,
                           kernels::KvDType kv_dtype, int32_t block_size, int64_t num_blocks)
    : threads_(static_cast<int>(rank_weights.size())), clock_read_seconds_(clock_read_seconds()) {
  const int tp = static_cast<int>(rank_weights.size());
  if (tp > 1) group_ = std::make_unique<engine::SharedMemoryGroup>(tp);
  for (int r = 0; r < tp; ++r) {
    const models::ModelWeights& weights = rank_weights[static_cast<size_t>(r)];
    ranks_.push_back(std::make_unique<Rank>(weights, num_threads,
                                            arena_spec(weights, kv_dtype, block_size, num_blocks)));
  }
  Rank& rank0 = *ranks_[0];
  timing_ = std::make_unique<TimingBackend>(rank0.cpu, rank0.weights.config);
  // One rank: nothing to reduce, and nothing to time.
  if (tp > 1) timed_comm_ = std::make_unique<TimedCommunicator>(group_->communicator(0), *timing_);
  models::Communicator& comm0 = tp > 1 ? *timed_comm_ : single_rank_;
  rank0.model = std::make_unique<models::PagedModel>(rank0.weights, *timing_, comm0);
  for (int r = 1; r < tp; ++r) {
    Rank& rank = *ranks_[static_cast<size_t>(r)];
    rank.model =
        std::make_unique<models::PagedModel>(rank.weights, rank.cpu, group_->communicator(r));
  }
}

ForwardBench::~ForwardBench() = default;

models::ForwardBatch synthetic_batch(std::span<const perf::SeqWork> batch,
                                     const kernels::KvCacheSpec& spec, int64_t vocab) {
  models::ForwardBatch forward;
  int64_t next_block = 0;
  for (size_t s = 0; s < batch.size(); ++s) {
    const perf::SeqWork& work = batch[s];
    models::SequenceInput seq;
    const int64_t num_positions = work.num_context_tokens + work.num_new_tokens;
    const int64_t num_blocks = (num_positions + spec.block_size - 1) / spec.block_size;
    for (int64_t b = 0; b < num_blocks; ++b) {
      seq.block_table.push_back(static_cast<int32_t>(next_block % spec.num_blocks));
      ++next_block;
    }
    for (int64_t i = 0; i < work.num_new_tokens; ++i) {
      const int64_t position = work.num_context_tokens + i;
      seq.token_ids.push_back(
          static_cast<int32_t>((position * 7919 + static_cast<int64_t>(s) * 31) % vocab));
      seq.positions.push_back(static_cast<int32_t>(position));
      seq.slot_mapping.push_back(
          int64_t{seq.block_table[static_cast<size_t>(position / spec.block_size)]} *
              spec.block_size +
          position % spec.block_size);
    }
    forward.sequences.push_back(std::move(seq));
  }
  return forward;
}

ForwardTimes time_forwards(const std::function<double()>& once, const TimingBackend& timing,
                           double call_overhead_seconds, double wall_overhead_seconds,
                           int min_repeats, int max_repeats, double target_seconds) {
  std::vector<std::vector<double>> per_class(perf::kNumOpClasses);  // [class][repeat]
  std::vector<double> walls;                                        // [repeat]
  std::vector<double> unattributed;                                 // [repeat]
  const double warm_up = once();
  const int num_repeats =
      std::clamp(static_cast<int>(std::ceil(target_seconds / std::max(warm_up, 1e-9))), min_repeats,
                 max_repeats);
  for (int r = 0; r < num_repeats; ++r) {
    const double forward = once();
    const double wall = forward - wall_overhead_seconds * static_cast<double>(timing.total_calls());
    double attributed = 0.0;
    for (int c = 0; c < perf::kNumOpClasses; ++c) {
      const auto op = static_cast<perf::OpClass>(c);
      const double seconds =
          std::max(0.0, static_cast<double>(timing.nanoseconds(op)) * 1e-9 -
                            call_overhead_seconds * static_cast<double>(timing.num_calls(op)));
      per_class[static_cast<size_t>(c)].push_back(seconds);
      attributed += seconds;
    }
    walls.push_back(wall);
    unattributed.push_back(wall - attributed);
  }
  ForwardTimes times;
  for (int c = 0; c < perf::kNumOpClasses; ++c) {
    times.seconds[static_cast<size_t>(c)] = median(per_class[static_cast<size_t>(c)]);
  }
  times.forward_seconds = median(walls);
  times.unattributed_seconds = std::max(0.0, median(unattributed));
  times.num_repeats = num_repeats;
  return times;
}

ForwardTimes ForwardBench::run(std::span<const perf::SeqWork> batch, int min_repeats,
                               int max_repeats, double target_seconds) {
  const models::ForwardBatch forward =
      synthetic_batch(batch, ranks_[0]->arena.spec(), ranks_[0]->weights.config.vocab_size);
  auto once = [&] {
    const auto start = std::chrono::steady_clock::now();
    threads_.run([&](int r) {
      Rank& rank = *ranks_[static_cast<size_t>(r)];
      rank.model->forward(forward, rank.arena.view());
    });
    return seconds_since(start);
  };
  // A timed call's duration holds about one clock read; the forward's wall time two per call.
  return time_forwards(once, *timing_, clock_read_seconds_, 2.0 * clock_read_seconds_, min_repeats,
                       max_repeats, target_seconds);
}

}  // namespace tidal::profile
