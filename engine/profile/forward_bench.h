// Runs the paged forward pass of every tensor-parallel rank on synthetic batches the way
// engine::TensorParallelExecutor runs it — each rank its own shard, CPU backend and KV arena,
// rank 0 on the calling thread and the others on worker threads woken per forward
// (RankThreads), meeting in an engine::SharedMemoryGroup for the two all-reduces of every
// layer — and times rank 0's operators (TimingBackend over its CPU backend), its all-reduces
// included: the waits at the group's barriers for slower ranks land in the all-reduce, where the
// engine's steps see them. Warm-up and repeats; the lower quartile of each class is kept, less
// the cost of the clock reads the timing adds.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "engine/rank_threads.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/kv_cache.h"
#include "models/communicator.h"
#include "models/model_weights.h"
#include "models/paged_forward.h"
#include "perf/step_time_model.h"

namespace tidal::engine {
class SharedMemoryGroup;
}

namespace tidal::profile {

class TimingBackend;

struct ForwardTimes {
  // Lower quartile per class, all layers (rank 0's; allreduce: all its all-reduce calls).
  std::array<double, perf::kNumOpClasses> seconds{};
  double forward_seconds = 0.0;       // lower quartile of the forward's wall time, all ranks done
  double unattributed_seconds = 0.0;  // lower quartile of that wall time minus rank 0's timed
                                      // calls (flattening the batch, activation buffers, waking
                                      // and joining the other ranks)
  int num_repeats = 0;

  double operator[](perf::OpClass op) const { return seconds[static_cast<size_t>(op)]; }
};

// Per field the median over the passes (num_repeats: their sum).
ForwardTimes median_times(std::span<const ForwardTimes> passes);

// The forward inputs of `batch` on an arena of `spec`: each sequence's new tokens (synthetic ids
// below `vocab`) on top of its context, distinct blocks while the arena has room, then shared.
models::ForwardBatch synthetic_batch(std::span<const perf::SeqWork> batch,
                                     const kernels::KvCacheSpec& spec, int64_t vocab);

// Times forwards: `once` runs one (`timing` attributing its calls) and returns its wall seconds;
// one warm-up, then repeats until `target_seconds` of measurement or max_repeats, at least
// min_repeats. Every call's time less `call_overhead_seconds` (at least 0) goes to its class;
// each wall time loses `wall_overhead_seconds` per timed call; medians are kept.
ForwardTimes time_forwards(const std::function<double()>& once, const TimingBackend& timing,
                           double call_overhead_seconds, double wall_overhead_seconds,
                           int min_repeats, int max_repeats, double target_seconds);

class ForwardBench {
 public:
  // `rank_weights`: every rank's (quantized) shard, [tp], kept by reference. Each rank's KV
  // arena holds `num_blocks` blocks of `block_size` tokens in `kv_dtype`; each rank's backend
  // has `num_threads` kernel threads.
  ForwardBench(std::span<const models::ModelWeights> rank_weights, int num_threads,
               kernels::KvDType kv_dtype, int32_t block_size, int64_t num_blocks);
  ~ForwardBench();

  // One forward over `batch` on every rank (each sequence's new tokens on top of its cached
  // context): one warm-up, then repeats until `target_seconds` of measurement or max_repeats,
  // at least min_repeats. Sequences get distinct KV blocks while the arena has room, then share
  // them.
  ForwardTimes run(std::span<const perf::SeqWork> batch, int min_repeats, int max_repeats,
                   double target_seconds);

 private:
  struct Rank {
    const models::ModelWeights& weights;
    kernels::cpu::CpuBackend cpu;
    kernels::KvArena arena;
    std::unique_ptr<models::PagedModel> model;
    Rank(const models::ModelWeights& w, int num_threads, const kernels::KvCacheSpec& spec);
  };

  std::unique_ptr<engine::SharedMemoryGroup> group_;  // tp > 1
  models::SingleRankCommunicator single_rank_;        // tp == 1
  std::unique_ptr<TimingBackend> timing_;             // over rank 0's backend
  std::unique_ptr<models::Communicator> timed_comm_;  // rank 0's communicator, timed (tp > 1)
  std::vector<std::unique_ptr<Rank>> ranks_;          // [tp]; models use the three above
  engine::RankThreads threads_;                       // stopped before the ranks go
  double clock_read_seconds_;  // cost of one steady_clock::now(), taken off every timed call
};

}  // namespace tidal::profile
