#include "kernels/cuda/kv_arena.h"

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "kernels/cuda/cuda_check.h"

namespace tidal::kernels::cuda {

namespace {

void check_shape(const KvCacheSpec& shape) {
  if (shape.num_layers <= 0 || shape.block_size <= 0 || shape.num_kv_heads <= 0 ||
      shape.head_dim <= 0) {
    throw std::invalid_argument(
        "cuda kv arena: num_layers, block_size, num_kv_heads and head_dim "
        "must be positive");
  }
}

size_t bytes_with_blocks(KvCacheSpec shape, int64_t num_blocks) {
  shape.num_blocks = num_blocks;
  return shape.total_bytes();
}

}  // namespace

size_t kv_budget_bytes(const KvMemoryBudget& budget) {
  if (!(budget.gpu_memory_utilization > 0.0) || budget.gpu_memory_utilization > 1.0) {
    throw std::invalid_argument("gpu_memory_utilization: must be in (0, 1]");
  }
  const double allowed = budget.gpu_memory_utilization * static_cast<double>(budget.total_bytes);
  const double in_use = static_cast<double>(budget.total_bytes - budget.free_bytes);
  const double left = allowed - in_use - static_cast<double>(budget.activation_reserve_bytes);
  return left > 0.0 ? static_cast<size_t>(left) : 0;
}

int64_t kv_blocks_that_fit(const KvCacheSpec& shape, size_t budget_bytes) {
  check_shape(shape);
  const size_t per_block = bytes_with_blocks(shape, 1);
  int64_t num_blocks = static_cast<int64_t>(budget_bytes / per_block);
  // total_bytes() pads the data to 64 bytes, so the estimate can be one block too many.
  while (num_blocks > 0 && bytes_with_blocks(shape, num_blocks) > budget_bytes) --num_blocks;
  return num_blocks;
}

KvMemoryBudget measure_kv_budget(double gpu_memory_utilization, size_t activation_reserve_bytes) {
  KvMemoryBudget budget;
  TIDAL_CUDA_CHECK(cudaMemGetInfo(&budget.free_bytes, &budget.total_bytes));
  budget.gpu_memory_utilization = gpu_memory_utilization;
  budget.activation_reserve_bytes = activation_reserve_bytes;
  return budget;
}

CudaKvArena::CudaKvArena(const KvCacheSpec& spec) : spec_(spec) {
  check_shape(spec);
  if (spec.num_blocks <= 0)
    throw std::invalid_argument("cuda kv arena: num_blocks must be positive");
  storage_ = DeviceBuffer<std::byte>(spec.total_bytes());
  TIDAL_CUDA_CHECK(cudaMemset(storage_.data(), 0, storage_.bytes()));
  TIDAL_CUDA_CHECK(cudaDeviceSynchronize());  // zeros in place before any stream's kernels
}

CudaKvArena CudaKvArena::sized_from_free_memory(const KvCacheSpec& shape,
                                                double gpu_memory_utilization,
                                                size_t activation_reserve_bytes) {
  const size_t budget =
      kv_budget_bytes(measure_kv_budget(gpu_memory_utilization, activation_reserve_bytes));
  KvCacheSpec spec = shape;
  spec.num_blocks = kv_blocks_that_fit(shape, budget);
  if (spec.num_blocks == 0) {
    throw CudaError("cuda kv arena: no room for one KV block (budget " + std::to_string(budget) +
                    " bytes at gpu_memory_utilization " + std::to_string(gpu_memory_utilization) +
                    ")");
  }
  return CudaKvArena(spec);
}

KvCacheView CudaKvArena::view() {
  KvCacheView view;
  view.spec = spec_;
  view.data = storage_.data();
  if (spec_.dtype == KvDType::int8) {
    const size_t padded_data = (spec_.data_bytes() + 63) / 64 * 64;
    view.scales = reinterpret_cast<float*>(storage_.data() + padded_data);
  }
  return view;
}

}  // namespace tidal::kernels::cuda
