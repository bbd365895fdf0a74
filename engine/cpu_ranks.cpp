// CPU ranks: the backend, weights and arena of each rank in host memory.
#include <utility>
#include <vector>

#include "engine/rank_device.h"
#include "engine/shm_communicator.h"
#include "kernels/cpu/cpu_backend.h"
#include "models/memory_footprint.h"

namespace tidal::engine {
namespace {

class CpuRankDevice final : public RankDevice {
 public:
  CpuRankDevice(const models::ModelWeights& weights, int num_threads,
                const kernels::KvCacheSpec& spec)
      : backend_(num_threads), weights_(models::host_views(weights)), arena_(spec) {}
  kernels::Backend& backend() override { return backend_; }
  const models::ModelWeightViews& weights() const override { return weights_; }
  kernels::KvCacheView kv_view() override { return arena_.view(); }
  const kernels::KvCacheSpec& kv_spec() const override { return arena_.spec(); }
  size_t kv_arena_bytes() const override { return arena_.bytes(); }

 private:
  kernels::cpu::CpuBackend backend_;
  models::ModelWeightViews weights_;
  kernels::KvArena arena_;
};

class CpuRankGroup final : public RankGroup {
 public:
  CpuRankGroup(std::span<const models::ModelWeights* const> shards, const ExecutorConfig& config)
      : shm_(static_cast<int>(shards.size())) {
    for (const models::ModelWeights* shard : shards) {
      devices_.push_back(std::make_unique<CpuRankDevice>(
          *shard, config.num_threads,
          models::kv_cache_spec(*shard, config.num_gpu_blocks, config.block_size,
                                config.kv_dtype)));
    }
  }
  int world_size() const override { return static_cast<int>(devices_.size()); }
  RankDevice& rank(int r) const override { return *devices_.at(static_cast<size_t>(r)); }
  models::Communicator& communicator(int r) const override {
    if (devices_.size() == 1) return single_rank_;
    return shm_.communicator(r);
  }

 private:
  mutable SharedMemoryGroup shm_;
  mutable models::SingleRankCommunicator single_rank_;   // tp == 1
  std::vector<std::unique_ptr<CpuRankDevice>> devices_;  // [tp]
};

}  // namespace

std::unique_ptr<RankGroup> make_cpu_rank_group(std::span<const models::ModelWeights* const> shards,
                                               const ExecutorConfig& config) {
  return std::make_unique<CpuRankGroup>(shards, config);
}

}  // namespace tidal::engine
