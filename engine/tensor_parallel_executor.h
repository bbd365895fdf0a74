// Runs the paged forward pass on `tp` tensor-parallel ranks (Megatron split via the models'
// sharding helpers). Rank 0 runs on the calling thread, ranks 1..tp-1 each on a worker thread of
// their own (RankThreads); each rank owns its weight shard, its backend, its slice of the KV arena
// (its kv heads, every block) and, for swapping, a host arena of the same layout (see
// rank_device.h). CPU ranks (their own kernel threads each) meet in a SharedMemoryGroup; CUDA ranks
// (GPU r, weights and arena on the device) in NCCL. Two all-reduces per layer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "engine/kv/block_manager.h"
#include "engine/rank_device.h"
#include "engine/rank_threads.h"
#include "kernels/kv_cache.h"
#include "models/communicator.h"
#include "models/model_weights.h"
#include "models/paged_forward.h"
#include "models/quantize_weights.h"

namespace tidal::engine {

class TensorParallelExecutor {
 public:
  // `full`: unsharded fp32 weights (consumed). Shards them, quantizes each shard, places them on
  // the ranks' backends (cuda: copies to GPU r), allocates the arenas and starts the workers.
  // InputError for an impossible tp, quantization or (cuda) device setup.
  TensorParallelExecutor(models::ModelWeights full, const ExecutorConfig& config);
  ~TensorParallelExecutor();
  TensorParallelExecutor(const TensorParallelExecutor&) = delete;
  TensorParallelExecutor& operator=(const TensorParallelExecutor&) = delete;

  int world_size() const { return static_cast<int>(ranks_.size()); }
  const ExecutorConfig& config() const { return config_; }
  const models::ModelConfig& model_config() const { return ranks_[0]->weights.config; }
  const models::ModelWeights& rank_weights(int rank) const { return ranks_.at(rank)->weights; }
  const kernels::KvCacheSpec& device_kv_spec() const { return devices_->rank(0).kv_spec(); }
  // Rank `rank`'s arena, in its backend's memory (host memory on cpu).
  kernels::KvCacheView device_kv_view(int rank) const { return devices_->rank(rank).kv_view(); }
  size_t device_arena_bytes() const { return devices_->rank(0).kv_arena_bytes(); }  // per rank
  size_t host_arena_bytes() const;                                                  // per rank

  // Runs the batch on every rank. Returns rank 0's logits ([sum(batch.num_logit_rows), vocab]
  // in batch order, see PagedModel::forward); every rank computes identical bytes.
  std::vector<float> forward(const models::ForwardBatch& batch);

  // Block copies on every rank's arenas, in order: device -> host (swap out), host -> device
  // (swap in), device -> device (copy-on-write).
  void swap_out(std::span<const kv::BlockCopy> copies);
  void swap_in(std::span<const kv::BlockCopy> copies);
  void copy_device_blocks(std::span<const kv::BlockCopy> copies);

 private:
  struct Rank {
    models::ModelWeights weights;                  // host copy (the memory report reads it)
    std::unique_ptr<kernels::KvArena> host_arena;  // null without swapping
    std::unique_ptr<models::PagedModel> model;
    std::vector<float> logits;  // the last forward's output
  };

  ExecutorConfig config_;
  // Backends, device weights, arenas, communicators; declared before ranks_ so that the models
  // (whose buffers live in the backends' memory) go first.
  std::unique_ptr<RankGroup> devices_;
  std::vector<std::unique_ptr<Rank>> ranks_;  // [tp]
  // Started last in the constructor, once tp is checked and the ranks exist; declared last so
  // that its workers stop before the ranks go.
  std::unique_ptr<RankThreads> threads_;
};

}  // namespace tidal::engine
