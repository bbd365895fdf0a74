// Attention's FLOPs and bytes for one layer on one GPU, for the three ways engines run it:
// grouped-query attention over the paged KV cache, multi-head latent attention (expanded for
// prefill, absorbed for decode), and either of them over a sliding window.
#pragma once

#include <cstdint>
#include <span>

#include "perf/model_spec.h"
#include "perf/op_work.h"
#include "perf/step_time_model.h"

namespace tidal::perf {

// What one GPU computes in one layer.
struct AttentionShape {
  double num_heads = 0;     // query heads on this GPU
  double num_kv_heads = 0;  // GQA: key/value heads on this GPU
  double head_dim = 0;      // GQA: q/k/v width per head; MLA: qk_nope + qk_rope
  double kv_bytes = 0;      // per KV element
  bool mla = false;
  MlaDims mla_dims;
  double kv_b_weight_bytes = 0;  // MLA: per element of kv_b_proj (its served format)
  int64_t window = 0;            // 0: full attention; else the sliding window in tokens
};

struct AttentionWork {
  OpWork prefill;  // prefill chunks and speculative verification
  OpWork decode;   // one new token on a non-empty context
};

// Query-key pairs of a causal chunk of c new tokens on p cached ones, each query seeing at most
// `window` keys (0 = unbounded): sum over i = 1..c of min(p + i, window).
double attended_pairs(double c, double p, int64_t window);

AttentionWork attention_work(const AttentionShape& shape, std::span<const SeqWork> batch);

}  // namespace tidal::perf
