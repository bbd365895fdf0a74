// Where the tensor-parallel ranks of an executor compute. A RankDevice is one rank's backend,
// the weights as that backend reads them and its device KV arena; a RankGroup holds every rank
// and the communicators their forward passes reduce through.
//   cpu:  CpuBackend over the host weights, a host KvArena, a SharedMemoryGroup (cpu_ranks.cpp)
//   cuda: CudaBackend on GPU r, DeviceWeights, a CudaKvArena, NCCL ranks (cuda_ranks.h)
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "engine/engine_config.h"
#include "kernels/backend.h"
#include "kernels/kv_cache.h"
#include "kernels/step_graphs.h"
#include "models/communicator.h"
#include "models/model_weights.h"
#include "models/quantize_weights.h"
#include "models/weight_views.h"

namespace tidal::engine {

struct ExecutorConfig {
  BackendKind backend = BackendKind::cpu;
  int32_t tp = 1;
  int32_t num_threads = 1;  // kernel threads per rank (cpu)
  models::QuantSpec quant;
  kernels::KvDType kv_dtype = kernels::KvDType::bf16;
  int32_t block_size = 16;
  int64_t num_gpu_blocks = 1;             // cuda: 0 sizes the arena from gpu_memory_utilization
  int64_t num_cpu_blocks = 0;             // 0: no host arena
  double gpu_memory_utilization = 0.9;    // cuda, when num_gpu_blocks == 0
  int64_t max_gpu_blocks = 0;             // cuda sizing: at most this many blocks (0: no cap)
  int64_t max_num_batched_tokens = 8192;  // cuda sizing: activations reserved for this many
  bool cuda_graphs = true;                // cuda: decode steps through CUDA graphs
};

class RankDevice {
 public:
  virtual ~RankDevice() = default;
  virtual kernels::Backend& backend() = 0;
  // The rank's weights in the backend's memory.
  virtual const models::ModelWeightViews& weights() const = 0;
  virtual kernels::KvCacheView kv_view() = 0;
  virtual const kernels::KvCacheSpec& kv_spec() const = 0;
  virtual size_t kv_arena_bytes() const = 0;
  // Makes the calling thread ready to drive this rank (cuda: selects the rank's GPU).
  virtual void bind_thread() {}
  // Where the rank's decode steps are recorded and replayed; nullptr: every step eagerly.
  virtual kernels::StepGraphs* step_graphs() { return nullptr; }
};

class RankGroup {
 public:
  virtual ~RankGroup() = default;
  virtual int world_size() const = 0;
  virtual RankDevice& rank(int r) const = 0;
  virtual models::Communicator& communicator(int r) const = 0;
};

// CPU ranks over `shards` ([tp] host weights, quantized; they must outlive the group), each with
// config.num_threads kernel threads and a host arena of config.num_gpu_blocks blocks.
std::unique_ptr<RankGroup> make_cpu_rank_group(std::span<const models::ModelWeights* const> shards,
                                               const ExecutorConfig& config);

}  // namespace tidal::engine
