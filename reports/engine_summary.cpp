#include "reports/engine_summary.h"

namespace tidal::reports {

EngineFigures read_engine_figures(const JsonView& doc) {
  using E = EngineFigures;
  EngineFigures e;
  read_fields(doc.at("inputs"), e, "model", &E::model, "model_source", &E::model_source, "trace",
              &E::trace, "time_scale", &E::time_scale);
  const JsonView engine = doc.at("engine");
  read_fields(engine, e, "tp", &E::tp, "threads", &E::num_threads, "quant", &E::quant, "kv_dtype",
              &E::kv_dtype, "block_size", &E::block_size, "num_gpu_blocks", &E::num_gpu_blocks,
              "num_cpu_blocks", &E::num_cpu_blocks, "prefix_caching", &E::prefix_caching, "spec",
              &E::spec);
  read_fields(engine.at("scheduler"), e, "policy", &E::policy, "max_num_seqs", &E::max_num_seqs,
              "max_num_batched_tokens", &E::max_num_batched_tokens);
  read_fields(doc.at("memory"), e, "weight_bytes_per_rank", &E::weight_bytes_per_rank,
              "kv_arena_bytes_per_rank", &E::kv_arena_bytes_per_rank);
  read_fields(doc.at("run"), e, "wall_s", &E::wall_s, "busy_s", &E::busy_s, "num_steps",
              &E::num_steps, "num_recompute_preemptions", &E::num_recompute_preemptions,
              "num_swap_preemptions", &E::num_swap_preemptions, "num_swap_out_blocks",
              &E::num_swap_out_blocks, "num_swap_in_blocks", &E::num_swap_in_blocks,
              "num_prefix_queried_blocks", &E::num_prefix_queried_blocks, "num_prefix_hit_blocks",
              &E::num_prefix_hit_blocks);
  read_fields(doc.at("speculative"), e, "num_verifications", &E::num_verifications,
              "num_draft_tokens", &E::num_draft_tokens, "num_accepted_tokens",
              &E::num_accepted_tokens, "acceptance_rate", &E::acceptance_rate,
              "mean_accepted_length", &E::mean_accepted_length);
  return e;
}

}  // namespace tidal::reports
