#include "engine/memory_report.h"

#include "engine/draft_model.h"
#include "engine/tensor_parallel_executor.h"
#include "models/memory_footprint.h"

namespace tidal::engine {

MemoryReport memory_report(const TensorParallelExecutor& executor, const DraftModel* draft) {
  const ExecutorConfig& config = executor.config();
  const models::ModelWeights& rank0 = executor.rank_weights(0);
  MemoryReport r;
  r.tp = config.tp;
  r.weight_format = models::quant_spec_name(config.quant);
  r.kv_dtype = kernels::kv_dtype_name(config.kv_dtype);
  r.weight_bytes_per_rank = rank0.weight_bytes();
  for (int rank = 0; rank < executor.world_size(); ++rank) {
    r.weight_bytes_total += executor.rank_weights(rank).weight_bytes();
  }
  models::ModelConfig shard_config = rank0.config;
  shard_config.num_heads = rank0.shard.num_heads;
  shard_config.num_kv_heads = rank0.shard.num_kv_heads;
  shard_config.intermediate_size = rank0.shard.intermediate_size;
  r.formula_weight_bytes_per_rank = models::weight_bytes_for(shard_config, config.quant);
  const models::MemoryFootprint footprint = models::memory_footprint(rank0, config.kv_dtype);
  r.kv_bytes_per_token_per_rank = footprint.kv_bytes_per_token;
  r.kv_scale_bytes_per_token_per_rank = footprint.kv_scale_bytes_per_token;
  r.formula_kv_bytes_per_token_per_rank = models::kv_bytes_per_token(shard_config, config.kv_dtype);
  r.block_size = config.block_size;
  r.num_gpu_blocks = config.num_gpu_blocks;
  r.num_cpu_blocks = config.num_cpu_blocks;
  r.kv_arena_bytes_per_rank = executor.device_arena_bytes();
  r.formula_kv_arena_bytes_per_rank =
      static_cast<size_t>(config.num_gpu_blocks * config.block_size) *
      (r.formula_kv_bytes_per_token_per_rank + r.kv_scale_bytes_per_token_per_rank);
  r.host_arena_bytes_per_rank = executor.host_arena_bytes();
  if (draft != nullptr) {
    r.draft_weight_bytes = draft->weights().weight_bytes();
    r.draft_arena_bytes = draft->arena_bytes();
  }
  return r;
}

nlohmann::ordered_json to_json(const MemoryReport& r) {
  return nlohmann::ordered_json{
      {"tp", r.tp},
      {"weight_format", r.weight_format},
      {"kv_dtype", r.kv_dtype},
      {"weight_bytes_per_rank", r.weight_bytes_per_rank},
      {"weight_bytes_total", r.weight_bytes_total},
      {"formula_weight_bytes_per_rank", r.formula_weight_bytes_per_rank},
      {"weights_match_formula", r.weights_match_formula()},
      {"kv_bytes_per_token_per_rank", r.kv_bytes_per_token_per_rank},
      {"kv_scale_bytes_per_token_per_rank", r.kv_scale_bytes_per_token_per_rank},
      {"formula_kv_bytes_per_token_per_rank", r.formula_kv_bytes_per_token_per_rank},
      {"block_size", r.block_size},
      {"num_gpu_blocks", r.num_gpu_blocks},
      {"num_cpu_blocks", r.num_cpu_blocks},
      {"kv_arena_bytes_per_rank", r.kv_arena_bytes_per_rank},
      {"formula_kv_arena_bytes_per_rank", r.formula_kv_arena_bytes_per_rank},
      {"kv_matches_formula", r.kv_matches_formula()},
      {"host_arena_bytes_per_rank", r.host_arena_bytes_per_rank},
      {"draft_weight_bytes", r.draft_weight_bytes},
      {"draft_arena_bytes", r.draft_arena_bytes}};
}

}  // namespace tidal::engine
