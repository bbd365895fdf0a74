// Attention's FLOPs and bytes for one layer on one GPU, for the three ways engines run it:
// grouped-query attention over the paged KV cache, multi-head latent attention (expanded for
// prefill, absorbed for decode), and either of them over a sliding window.
#pragma once

#include <algorithm>
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

// Grouped-query attention's work is linear in a batch's new tokens, query-key pairs and cached
// tokens read, so attention_work sums those and prices them once. They are whole numbers, summed
// as integers (a step's pairs stay far below 2^53); each priced term is a whole number times the
// dtypes' 2, 1 or 0.5 bytes, so the work equals pricing each sequence alone and adding up, to
// the bit (tests/perf/gqa_attention_sums_test.cpp).
struct GqaSums {
  int64_t num_new_tokens = 0;
  int64_t num_pairs = 0;
  int64_t num_cached_reads = 0;

  // A chunk of c new tokens on p cached ones, each query seeing at most `window` keys (0 =
  // unbounded): attended_pairs' count, in integers. Inline: called for every sequence of every
  // step.
  void add(int64_t c, int64_t p, int64_t window) {
    num_new_tokens += c;
    if (window <= 0) {
      num_pairs += c * p + c * (c + 1) / 2;
      num_cached_reads += p;
      return;
    }
    const int64_t k0 = std::clamp<int64_t>(window - p, 0, c);
    num_pairs += k0 * p + k0 * (k0 + 1) / 2 + (c - k0) * window;
    num_cached_reads += std::min(p, window);
  }
};

// A batch's GQA sums, split as the kernels run them (decode_rows).
struct GqaBatchSums {
  GqaSums prefill;
  GqaSums decode;

  // To the sums of the step that repeats this one (sched::Scheduler::repeat_step: the same
  // sequences, one new token each, each on one more cached token), attending to every token.
  // The step repeated held decodes (c = 1 on p cached tokens: p + 1 pairs, p reads) and first
  // tokens of one-token prompts (the prefill part: 1 pair, no read each); now every one of them
  // decodes on one more cached token.
  void advance_repeated_step();
};

GqaBatchSums gqa_sums(std::span<const SeqWork> batch, int64_t window);
// attention_work of a GQA shape from its batch's sums.
AttentionWork gqa_work(const AttentionShape& shape, const GqaBatchSums& sums);

}  // namespace tidal::perf
