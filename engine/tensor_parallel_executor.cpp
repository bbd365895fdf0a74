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
  }
  errors_.resize(static_cast<size_t>(config.tp));
  for (int r = 1; r < config.tp; ++r) workers_.emplace_back([this, r] { worker_loop(r); });
}

TensorParallelExecutor::~TensorParallelExecutor() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  job_ready_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

size_t TensorParallelExecutor::host_arena_bytes() const {
  return ranks_[0]->host_arena ? ranks_[0]->host_arena->bytes() : 0;
}

void TensorParallelExecutor::worker_loop(int rank) {
  int64_t seen_generation = 0;
  for (;;) {
    const std::function<void(int)>* job = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      job_ready_.wait(lock, [&] { return stopping_ || generation_ != seen_generation; });
      if (stopping_) return;
      seen_generation = generation_;
      job = job_;
    }
    try {
      (*job)(rank);
    } catch (...) {
      errors_[static_cast<size_t>(rank)] = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --num_pending_;
    }
    job_done_.notify_one();
  }
}

void TensorParallelExecutor::run_on_all_ranks(const std::function<void(int rank)>& fn) {
  for (std::exception_ptr& e : errors_) e = nullptr;
  if (!workers_.empty()) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &fn;
      num_pending_ = static_cast<int>(workers_.size());
      ++generation_;
    }
    job_ready_.notify_all();
  }
  try {
    fn(0);
  } catch (...) {
    errors_[0] = std::current_exception();
  }
  if (!workers_.empty()) {
    std::unique_lock<std::mutex> lock(mutex_);
    job_done_.wait(lock, [&] { return num_pending_ == 0; });
  }
  for (const std::exception_ptr& e : errors_) {
    if (e) std::rethrow_exception(e);
  }
}

std::vector<float> TensorParallelExecutor::forward(const models::ForwardBatch& batch) {
  run_on_all_ranks([&](int r) {
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
