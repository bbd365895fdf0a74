#include "engine/tensor_parallel_executor.h"

#include <stdexcept>
#include <utility>

#include "engine/block_copy.h"
#include "engine/cuda_ranks.h"
#include "models/memory_footprint.h"
#include "models/tensor_parallel.h"

namespace tidal::engine {

TensorParallelExecutor::TensorParallelExecutor(models::ModelWeights full,
                                               const ExecutorConfig& config)
    : config_(config) {
  models::check_tensor_parallel(full.config, config.tp, "--tp");
  std::vector<models::ModelWeights> shards;  // [tp]
  if (config.tp == 1) {
    shards.push_back(std::move(full));
  } else {
    for (int r = 0; r < config.tp; ++r) shards.push_back(models::shard_weights(full, r, config.tp));
    full = models::ModelWeights{};  // release the unsharded copy
  }
  std::vector<const models::ModelWeights*> rank_weights;  // [tp]
  for (models::ModelWeights& shard : shards) {
    models::quantize_weights(shard, config.quant);
    auto rank = std::make_unique<Rank>();
    rank->weights = std::move(shard);
    rank_weights.push_back(&rank->weights);
    ranks_.push_back(std::move(rank));
  }
  devices_ = config.backend == BackendKind::cuda ? make_cuda_rank_group(rank_weights, config)
                                                 : make_cpu_rank_group(rank_weights, config);
  config_.num_gpu_blocks = devices_->rank(0).kv_spec().num_blocks;  // cuda may have sized it
  for (int r = 0; r < config.tp; ++r) {
    Rank& rank = *ranks_[static_cast<size_t>(r)];
    RankDevice& device = devices_->rank(r);
    if (config.num_cpu_blocks > 0) {
      kernels::KvCacheSpec host_spec = device.kv_spec();
      host_spec.num_blocks = config.num_cpu_blocks;
      rank.host_arena = std::make_unique<kernels::KvArena>(host_spec);
    }
    device.bind_thread();
    rank.model = std::make_unique<models::PagedModel>(
        device.weights(), device.backend(), devices_->communicator(r), device.backend().memory());
    rank.model->set_step_graphs(device.step_graphs());
  }
  threads_ = std::make_unique<RankThreads>(config.tp);
}

TensorParallelExecutor::~TensorParallelExecutor() = default;

size_t TensorParallelExecutor::host_arena_bytes() const {
  return ranks_[0]->host_arena ? ranks_[0]->host_arena->bytes() : 0;
}

std::vector<float> TensorParallelExecutor::forward(const models::ForwardBatch& batch) {
  threads_->run([&](int r) {
    Rank& rank = *ranks_[static_cast<size_t>(r)];
    RankDevice& device = devices_->rank(r);
    device.bind_thread();
    rank.logits = rank.model->forward(batch, device.kv_view());
  });
  for (size_t r = 1; r < ranks_.size(); ++r) ranks_[r]->logits.clear();
  return std::move(ranks_[0]->logits);
}

void TensorParallelExecutor::swap_out(std::span<const kv::BlockCopy> copies) {
  if (copies.empty()) return;
  if (!ranks_[0]->host_arena) throw std::logic_error("swap_out without a host arena");
  for (size_t r = 0; r < ranks_.size(); ++r) {
    copy_kv_blocks(devices_->rank(static_cast<int>(r)).kv_view(), ranks_[r]->host_arena->view(),
                   copies);
  }
}

void TensorParallelExecutor::swap_in(std::span<const kv::BlockCopy> copies) {
  if (copies.empty()) return;
  if (!ranks_[0]->host_arena) throw std::logic_error("swap_in without a host arena");
  for (size_t r = 0; r < ranks_.size(); ++r) {
    copy_kv_blocks(ranks_[r]->host_arena->view(), devices_->rank(static_cast<int>(r)).kv_view(),
                   copies);
  }
}

void TensorParallelExecutor::copy_device_blocks(std::span<const kv::BlockCopy> copies) {
  if (copies.empty()) return;
  for (int r = 0; r < world_size(); ++r) {
    RankDevice& device = devices_->rank(r);
    device.bind_thread();
    copy_kv_blocks(device.kv_view(), device.kv_view(), copies, device.backend().memory());
  }
}

}  // namespace tidal::engine
