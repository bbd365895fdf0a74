// The CUDA ranks of the engine: rank r on GPU r (CudaBackend), its shard copied to the device
// (models::DeviceWeights: fp32, int8 or fp8 as quantized), a CudaKvArena, and for tp > 1 NCCL
// ranks from ncclCommInitAll whose all-reduces run on each backend's stream. Declared without
// CUDA types: a tidal built without CUDA gets definitions that report its absence.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "engine/rank_device.h"

namespace tidal::engine {

bool cuda_backend_built();  // this tidal has the CUDA backend (TIDAL_HAVE_CUDA)
int cuda_device_count();    // 0 without the CUDA backend, a driver or a device (never throws)
std::string cuda_device_name(int device);  // "" when there is no such device

// InputError naming --backend / --tp / --swap-blocks when `tp` CUDA ranks cannot run here:
// no CUDA backend built, no device, tp above the device count, or swap preemption asked for.
void check_cuda_ranks(int32_t tp, int64_t num_cpu_blocks);

// Copies each shard to its GPU and sizes the arenas: config.num_gpu_blocks blocks when > 0,
// else every rank measures its free memory after the weights (kv_budget_bytes with
// config.gpu_memory_utilization and an activation reserve for config.max_num_batched_tokens),
// and all ranks take the smallest count (capped at config.max_gpu_blocks when > 0). InputError
// when no block fits. The host shards may be dropped once this returns.
std::unique_ptr<RankGroup> make_cuda_rank_group(std::span<const models::ModelWeights* const> shards,
                                                const ExecutorConfig& config);

}  // namespace tidal::engine
