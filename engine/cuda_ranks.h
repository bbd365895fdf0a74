// The CUDA ranks of the engine: rank r on GPU r (CudaBackend), its shard copied to the device
// (models::DeviceWeights: fp32, int8 or fp8 as quantized), a CudaKvArena, and for tp > 1 NCCL
// ranks from ncclCommInitAll whose all-reduces run on each backend's stream. Declared without
// CUDA types: a tidal built without CUDA gets definitions that report its absence.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

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

// Seconds of one in-place fp32 all-reduce (sum) of [num_tokens[i], hidden] across GPUs 0..tp-1
// through NCCL (ncclCommInitAll, one thread per rank, each on its own stream), for every entry
// of num_tokens: a warm-up, then `repeats` timings of kAllReduceCallsPerTiming back-to-back calls
// between CUDA events on GPU 0's stream (so the wait for the other ranks is included), median /
// calls. InputError (naming --tp) when tp < 2, tp exceeds the device count, or this tidal has no
// NCCL or no CUDA backend.
inline constexpr int kAllReduceCallsPerTiming = 8;
std::vector<double> measure_nccl_all_reduce(int32_t tp, int64_t hidden,
                                            std::span<const int64_t> num_tokens, int repeats);

}  // namespace tidal::engine
