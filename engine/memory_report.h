// The engine's memory footprint and its check against the catalog formulas:
//   weights per rank  == models::weight_bytes_for(config with this rank's heads and MLP width,
//                        quantization)  (embeddings, norms and head replicated on every rank)
//   KV bytes per token per rank == num_layers * 2 * (num_kv_heads / tp) * head_dim * dtype bytes
//                        (the formula perf's plan_memory uses per GPU)
//   KV arena per rank  == num_blocks * block_size * (KV bytes + int8 scale bytes per token),
//                        plus < 64 bytes of alignment padding between data and scales.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace tidal::engine {

class TensorParallelExecutor;
class DraftModel;

struct MemoryReport {
  int32_t tp = 1;
  std::string weight_format;  // quantization name (none, int8, int8:g64, fp8)
  std::string kv_dtype;
  size_t weight_bytes_per_rank = 0;              // rank 0's stored bytes
  size_t weight_bytes_total = 0;                 // over all ranks
  size_t formula_weight_bytes_per_rank = 0;      // models::weight_bytes_for on the shard's config
  size_t kv_bytes_per_token_per_rank = 0;        // K and V of every layer, this rank's heads
  size_t kv_scale_bytes_per_token_per_rank = 0;  // int8 KV only
  size_t formula_kv_bytes_per_token_per_rank = 0;
  int64_t block_size = 0;
  int64_t num_gpu_blocks = 0;
  int64_t num_cpu_blocks = 0;
  size_t kv_arena_bytes_per_rank = 0;          // allocated device arena
  size_t formula_kv_arena_bytes_per_rank = 0;  // blocks * block_size * (kv + scale bytes/token)
  size_t host_arena_bytes_per_rank = 0;        // swap arena
  size_t draft_weight_bytes = 0;               // 0 without a draft model
  size_t draft_arena_bytes = 0;

  bool weights_match_formula() const {
    return weight_bytes_per_rank == formula_weight_bytes_per_rank;
  }
  bool kv_matches_formula() const {
    return kv_bytes_per_token_per_rank == formula_kv_bytes_per_token_per_rank &&
           kv_arena_bytes_per_rank >= formula_kv_arena_bytes_per_rank &&
           kv_arena_bytes_per_rank < formula_kv_arena_bytes_per_rank + 64;
  }
};

MemoryReport memory_report(const TensorParallelExecutor& executor, const DraftModel* draft);
nlohmann::ordered_json to_json(const MemoryReport& report);

}  // namespace tidal::engine
