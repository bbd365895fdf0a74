// The KV arena in device memory (one cudaMalloc, zero-filled, layout of kernels/kv_cache.h),
// sized from what is left after the weights: a gpu_memory_utilization share of the device's
// total memory, minus what is already in use, minus a reserve for activations.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cuda/device_buffer.h"
#include "kernels/kv_cache.h"

namespace tidal::kernels::cuda {

struct KvMemoryBudget {
  size_t total_bytes = 0;               // device memory
  size_t free_bytes = 0;                // free now (after the weights are loaded)
  double gpu_memory_utilization = 0.9;  // share of total_bytes this process may use, in (0, 1]
  size_t activation_reserve_bytes = 0;  // kept free for activations and scratch
};

// Bytes the arena may take: utilization * total - (total - free) - reserve, or 0.
size_t kv_budget_bytes(const KvMemoryBudget& budget);

// The most blocks of `shape` (its num_blocks is ignored) whose total_bytes() fit in
// `budget_bytes`; 0 when not even one fits. std::invalid_argument for a non-positive dimension.
int64_t kv_blocks_that_fit(const KvCacheSpec& shape, size_t budget_bytes);

// The current device's total and free memory (cudaMemGetInfo).
KvMemoryBudget measure_kv_budget(double gpu_memory_utilization, size_t activation_reserve_bytes);

class CudaKvArena {
 public:
  explicit CudaKvArena(const KvCacheSpec& spec);  // std::invalid_argument on a bad spec
  // As many blocks as the measured budget allows (CudaError when not even one block fits).
  static CudaKvArena sized_from_free_memory(const KvCacheSpec& shape, double gpu_memory_utilization,
                                            size_t activation_reserve_bytes);
  const KvCacheSpec& spec() const { return spec_; }
  KvCacheView view();
  size_t bytes() const { return storage_.bytes(); }

 private:
  KvCacheSpec spec_;
  DeviceBuffer<std::byte> storage_;  // data (padded to 64 bytes) then int8 scales
};

}  // namespace tidal::kernels::cuda
