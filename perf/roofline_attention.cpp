#include "perf/roofline_attention.h"

#include <algorithm>
#include <cassert>

namespace tidal::perf {
namespace {

constexpr double kActivationBytes = 2.0;  // bf16 q, k, v and outputs

// Cached tokens a chunk reads: all of them, or the last `window`.
double cached_read(double p, int64_t window) {
  return window > 0 ? std::min(p, static_cast<double>(window)) : p;
}

OpWork gqa_part_work(const AttentionShape& s, const GqaSums& sums) {
  const double q_width = s.num_heads * s.head_dim;
  const double kv_width = 2.0 * s.num_kv_heads * s.head_dim;
  const auto c = static_cast<double>(sums.num_new_tokens);
  // QK^T and PV: 2 FLOPs per multiply-add each, over head_dim, per query-key pair and head.
  return {4.0 * q_width * static_cast<double>(sums.num_pairs),
          2.0 * c * q_width * kActivationBytes +
              (static_cast<double>(sums.num_cached_reads) + 2.0 * c) * kv_width * s.kv_bytes};
}

// Multi-head latent attention as vLLM runs it (vllm/v1/attention/backends/mla/common.py, v0.11,
// and SGLang's flashinfer/flashmla backends alike): decode absorbs kv_b_proj into the query and
// the output, so it attends over the latent cache directly ("data-movement friendly"); prefill
// expands the cached latents into per-head keys and values and runs ordinary attention ("compute
// friendly").
// `rows` query tokens (1, or 1 + k verifying k drafts) on p cached ones: each row absorbs and
// attends over every key; the latents are read once and the rows' own written.
OpWork mla_decode_work(const AttentionShape& s, double rows, double p) {
  const MlaDims& m = s.mla_dims;
  const double h = s.num_heads;
  const double latent = static_cast<double>(m.kv_lora_rank + m.qk_rope_head_dim);
  const double lora = static_cast<double>(m.kv_lora_rank);
  const double keys = cached_read(p, s.window) + rows;
  const double absorb = 2.0 * h * static_cast<double>(m.qk_nope_head_dim) * lora +
                        2.0 * h * lora * static_cast<double>(m.v_head_dim);
  const double attend = 2.0 * h * latent * keys + 2.0 * h * lora * keys;
  const double q_and_out =
      h * static_cast<double>(m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim);
  return {rows * (absorb + attend),
          rows * q_and_out * kActivationBytes + (keys + rows) * latent * s.kv_bytes};
}

OpWork mla_prefill_work(const AttentionShape& s, double c, double p) {
  const MlaDims& m = s.mla_dims;
  const double h = s.num_heads;
  const double latent = static_cast<double>(m.kv_lora_rank + m.qk_rope_head_dim);
  const double qk = static_cast<double>(m.qk_nope_head_dim + m.qk_rope_head_dim);
  const double v = static_cast<double>(m.v_head_dim);
  const double tokens = cached_read(p, s.window) + c;  // latents expanded this step
  const double expand_flops = 2.0 * tokens * static_cast<double>(m.kv_lora_rank) * h *
                              static_cast<double>(m.qk_nope_head_dim + m.v_head_dim);
  // Latents read and written, expanded keys and values written and read back.
  const double expand_bytes =
      (tokens + c) * latent * s.kv_bytes + 2.0 * tokens * h * (qk + v) * kActivationBytes;
  const double pairs = attended_pairs(c, p, s.window);
  return {expand_flops + 2.0 * h * pairs * (qk + v),
          expand_bytes + c * h * (qk + v) * kActivationBytes};
}

double kv_b_weight_bytes(const AttentionShape& s) {
  const MlaDims& m = s.mla_dims;
  return static_cast<double>(m.kv_lora_rank) * s.num_heads *
         static_cast<double>(m.qk_nope_head_dim + m.v_head_dim) * s.kv_b_weight_bytes;
}

}  // namespace

GqaBatchSums gqa_sums(std::span<const SeqWork> batch, int64_t window) {
  GqaBatchSums sums;
  for (const SeqWork& seq : batch) {
    if (seq.num_new_tokens <= 0) continue;
    // Decodes and speculative verifications run the decode kernels (step_time_model.h).
    (decode_rows(seq) > 0 ? sums.decode : sums.prefill)
        .add(seq.num_new_tokens, seq.num_context_tokens, window);
  }
  return sums;
}

void GqaBatchSums::advance_repeated_step() {
  assert(prefill.num_pairs == prefill.num_new_tokens && prefill.num_cached_reads == 0);
  decode.num_pairs += decode.num_new_tokens + 2 * prefill.num_new_tokens;
  decode.num_cached_reads += decode.num_new_tokens + prefill.num_new_tokens;
  decode.num_new_tokens += prefill.num_new_tokens;
  prefill = GqaSums{};
}

AttentionWork gqa_work(const AttentionShape& shape, const GqaBatchSums& sums) {
  return {gqa_part_work(shape, sums.prefill), gqa_part_work(shape, sums.decode)};
}

double attended_pairs(double c, double p, int64_t window) {
  if (window <= 0) return c * (p + (c + 1.0) / 2.0);
  const double w = static_cast<double>(window);
  // Queries 1..k0 see p + i keys (below the window), the rest see w.
  const double k0 = std::clamp(w - p, 0.0, c);
  return k0 * p + k0 * (k0 + 1.0) / 2.0 + (c - k0) * w;
}

AttentionWork attention_work(const AttentionShape& shape, std::span<const SeqWork> batch) {
  AttentionWork work;
  if (!shape.mla) return gqa_work(shape, gqa_sums(batch, shape.window));
  bool any_prefill = false;
  bool any_decode = false;
  for (const SeqWork& seq : batch) {
    if (seq.num_new_tokens <= 0) continue;
    const double c = static_cast<double>(seq.num_new_tokens);
    const double p = static_cast<double>(seq.num_context_tokens);
    if (decode_rows(seq) > 0) {
      any_decode = true;
      work.decode += mla_decode_work(shape, c, p);
    } else {
      any_prefill = true;
      work.prefill += mla_prefill_work(shape, c, p);
    }
  }
  // MLA streams kv_b_proj once per step for each kind of work it does.
  if (any_prefill) work.prefill.bytes += kv_b_weight_bytes(shape);
  if (any_decode) work.decode.bytes += kv_b_weight_bytes(shape);
  return work;
}

}  // namespace tidal::perf
