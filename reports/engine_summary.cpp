#include "reports/engine_summary.h"

namespace tidal::reports {

EngineFigures read_engine_figures(const JsonView& doc) {
  EngineFigures e;
  const JsonView inputs = doc.at("inputs");
  e.model = inputs.string("model");
  e.model_source = inputs.string("model_source");
  e.trace = inputs.string("trace");
  e.time_scale = inputs.number("time_scale");

  const JsonView engine = doc.at("engine");
  e.tp = engine.integer("tp");
  e.num_threads = engine.integer("threads");
  e.quant = engine.string("quant");
  e.kv_dtype = engine.string("kv_dtype");
  e.block_size = engine.integer("block_size");
  e.num_gpu_blocks = engine.integer("num_gpu_blocks");
  e.num_cpu_blocks = engine.integer("num_cpu_blocks");
  e.prefix_caching = engine.boolean("prefix_caching");
  e.spec = engine.string("spec");
  const JsonView scheduler = engine.at("scheduler");
  e.policy = scheduler.string("policy");
  e.max_num_seqs = scheduler.integer("max_num_seqs");
  e.max_num_batched_tokens = scheduler.integer("max_num_batched_tokens");

  const JsonView memory = doc.at("memory");
  e.weight_bytes_per_rank = memory.integer("weight_bytes_per_rank");
  e.kv_arena_bytes_per_rank = memory.integer("kv_arena_bytes_per_rank");

  const JsonView run = doc.at("run");
  e.wall_s = run.number("wall_s");
  e.busy_s = run.number("busy_s");
  e.num_steps = run.integer("num_steps");
  e.num_recompute_preemptions = run.integer("num_recompute_preemptions");
  e.num_swap_preemptions = run.integer("num_swap_preemptions");
  e.num_swap_out_blocks = run.integer("num_swap_out_blocks");
  e.num_swap_in_blocks = run.integer("num_swap_in_blocks");
  e.num_prefix_queried_blocks = run.integer("num_prefix_queried_blocks");
  e.num_prefix_hit_blocks = run.integer("num_prefix_hit_blocks");

  const JsonView spec = doc.at("speculative");
  e.num_verifications = spec.integer("num_verifications");
  e.num_draft_tokens = spec.integer("num_draft_tokens");
  e.num_accepted_tokens = spec.integer("num_accepted_tokens");
  e.acceptance_rate = spec.number("acceptance_rate");
  e.mean_accepted_length = spec.number("mean_accepted_length");
  return e;
}

}  // namespace tidal::reports
