// How a model is laid out in GPU memory: weights, KV cache, activation reserve.
#pragma once

#include <cstdint>
#include <string>

#include "sim/perf/dtype.h"
#include "sim/perf/gpu_catalog.h"
#include "sim/perf/model_catalog.h"

namespace tidal::perf {

// One replica's parallelism and numeric formats.
struct Deployment {
  int32_t tp = 1;  // tensor-parallel degree: GPUs per replica
  DType weight_dtype = DType::bf16;
  DType kv_dtype = DType::bf16;
  double gpu_memory_utilization = 0.9;    // share of device memory the engine may use
  int32_t block_size = 16;                // KV block size in tokens
  int64_t max_num_batched_tokens = 8192;  // peak tokens in one forward pass (activation reserve)
};

// Per GPU of the replica. The engine reports the same figures.
//   usable   = memory_bytes * gpu_memory_utilization
//   kv_bytes = usable - weight_bytes_per_gpu - activation_reserve_bytes
//   num_kv_blocks = floor(kv_bytes / (block_size * kv_bytes_per_token_per_gpu))
struct MemoryPlan {
  double weight_bytes_per_gpu = 0;
  double kv_bytes_per_token_per_gpu = 0;  // K and V, every layer, this GPU's KV heads
  double activation_reserve_bytes = 0;    // runtime context + peak activations
  double kv_cache_bytes_per_gpu = 0;      // the budget the KV blocks are cut from
  int64_t num_kv_blocks = 0;
};

// KV heads one GPU holds: num_kv_heads / tp, or 1 when tp is a multiple of num_kv_heads (heads
// are replicated, as vLLM does).
int64_t kv_heads_per_gpu(const ModelSpec& model, int32_t tp);

// Checks tp against the model's heads and the other deployment fields; InputErrors as below.
void check_deployment(const ModelSpec& model, const Deployment& deployment,
                      const std::string& json_path);

// Checks the deployment against the model and GPU and plans memory. `json_path` names the
// deployment object in the user's input (e.g. "scenario.json: fleet.pools[0]"); errors are
// InputErrors such as
//   "<json_path>.tp: 3 does not divide num_heads 32 of llama-3-8b"
//   "<json_path>.tp: 3 neither divides nor is a multiple of num_kv_heads 8 of llama-3-8b"
//   "<json_path>: llama-2-70b does not fit on RTX-4090 at tp=1: weights 128.5 GiB + ..."
MemoryPlan plan_memory(const ModelSpec& model, const GpuSpec& gpu, const Deployment& deployment,
                       const std::string& json_path);

}  // namespace tidal::perf
