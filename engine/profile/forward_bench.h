// Runs the paged forward pass of one tensor-parallel rank on synthetic batches and times every
// operator class (TimingBackend over the CPU backend), with warm-up and repeats, keeping the
// lower quartile of each class (lower_quartile), less the cost of the clock reads the timing adds.
// The all-reduces between ranks are skipped here (timed on their own).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/kv_cache.h"
#include "models/model_weights.h"
#include "models/paged_forward.h"
#include "sim/perf/step_time_model.h"

namespace tidal::profile {

class TimingBackend;

struct ForwardTimes {
  std::array<double, perf::kNumOpClasses> seconds{};  // lower quartile per class, all layers
  double forward_seconds = 0.0;                       // lower quartile of forward()'s wall time
  double unattributed_seconds = 0.0;  // lower quartile of forward()'s wall time minus its timed
                                      // operators
                                      // (flattening the batch, activation buffers)
  int num_repeats = 0;

  double operator[](perf::OpClass op) const { return seconds[static_cast<size_t>(op)]; }
};

class ForwardBench {
 public:
  // `rank_weights`: one rank's (quantized) shard; kept by reference. The KV arena holds
  // `num_blocks` blocks of `block_size` tokens in `kv_dtype`.
  ForwardBench(const models::ModelWeights& rank_weights, int num_threads, kernels::KvDType kv_dtype,
               int32_t block_size, int64_t num_blocks);
  ~ForwardBench();

  // One forward over `batch` (each sequence's new tokens on top of its cached context): one
  // warm-up, then repeats until `target_seconds` of measurement or max_repeats, at least
  // min_repeats. Sequences get distinct KV blocks while the arena has room, then share them.
  ForwardTimes run(std::span<const perf::SeqWork> batch, int min_repeats, int max_repeats,
                   double target_seconds);

 private:
  models::ForwardBatch make_batch(std::span<const perf::SeqWork> batch) const;

  const models::ModelWeights& weights_;
  kernels::cpu::CpuBackend cpu_;
  std::unique_ptr<TimingBackend> timing_;
  std::unique_ptr<models::Communicator> comm_;
  kernels::KvArena arena_;
  std::unique_ptr<models::PagedModel> model_;
  double clock_read_seconds_;  // cost of one steady_clock::now(), taken off every timed call
};

}  // namespace tidal::profile
