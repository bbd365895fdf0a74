// The kernels interface the forward pass calls. A backend owns where activations, weights and
// the KV arena live (host memory for the CPU backends); every pointer passed in is memory of
// that backend. Shapes are row-major; a comment names each buffer's shape.
#pragma once

#include <cstdint>
#include <string_view>

#include "kernels/attention_batch.h"
#include "kernels/backend_memory.h"
#include "kernels/kv_cache.h"
#include "kernels/linear_weight.h"

namespace tidal::kernels {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  // Where this backend's pointers live and how to move bytes there (host memory unless a
  // backend overrides it). A decorating backend should return its inner backend's memory.
  virtual BackendMemory& memory() { return host_memory(); }

  // out[t, :] = table[token_ids[t], :]; ids must be in [0, vocab).
  virtual void embedding(const float* table,        // [vocab, hidden]
                         int64_t hidden,            //
                         const int32_t* token_ids,  // [num_tokens]
                         int64_t num_tokens,        //
                         float* out) = 0;           // [num_tokens, hidden]

  // out = x / sqrt(mean(x^2) + eps) * weight, per row.
  virtual void rms_norm(const float* x,       // [num_rows, dim]
                        const float* weight,  // [dim]
                        int64_t num_rows, int64_t dim, float eps,
                        float* out) = 0;  // [num_rows, dim]

  // residual += x, then out = rms_norm(residual) (the fused pre-norm of the next sublayer).
  virtual void add_rms_norm(float* residual,      // [num_rows, dim]
                            const float* x,       // [num_rows, dim]
                            const float* weight,  // [dim]
                            int64_t num_rows, int64_t dim, float eps,
                            float* out) = 0;  // [num_rows, dim]

  // In-place rotary embedding of q and k at positions (rotate-half convention).
  virtual void rope(float* q,                  // [num_tokens, num_heads, head_dim]
                    float* k,                  // [num_tokens, num_kv_heads, head_dim]
                    const int32_t* positions,  // [num_tokens]
                    int64_t num_tokens, int64_t num_heads, int64_t num_kv_heads, int64_t head_dim,
                    const float* inv_freq) = 0;  // [head_dim / 2]

  // y = x W^T for any WeightFormat.
  virtual void linear(const float* x,  // [num_tokens, weight.cols]
                      int64_t num_tokens, const LinearView& weight,
                      float* y) = 0;  // [num_tokens, weight.rows]

  // out = silu(gate) * up, elementwise.
  virtual void swiglu(const float* gate,  // [count]
                      const float* up,    // [count]
                      int64_t count,
                      float* out) = 0;  // [count]

  // y += x, elementwise.
  virtual void add(float* y,        // [count]
                   const float* x,  // [count]
                   int64_t count) = 0;

  // Stores k and v of each new token at its slot in `layer`, converting to the arena dtype;
  // slot -1 is padding and skipped.
  virtual void write_kv(const KvCacheView& kv, int64_t layer,
                        const float* k,               // [num_tokens, num_kv_heads, head_dim]
                        const float* v,               // [num_tokens, num_kv_heads, head_dim]
                        const int64_t* slot_mapping,  // [num_tokens]
                        int64_t num_tokens) = 0;

  // Causal attention of each query token over its sequence's cached keys (see AttentionBatch);
  // reads whichever dtype the arena holds. scale is usually 1 / sqrt(head_dim).
  virtual void paged_attention(const float* q,  // [num_tokens, num_heads, head_dim]
                               const KvCacheView& kv, int64_t layer, const AttentionBatch& batch,
                               float scale,
                               float* out) = 0;  // [num_tokens, num_heads, head_dim]

  // In-place softmax of each row.
  virtual void softmax(float* x,  // [num_rows, num_cols]
                       int64_t num_rows, int64_t num_cols) = 0;

  // Mixtral routing: per token, the top_k largest router logits (ties to the lower expert id),
  // in descending order, weighted by a softmax over those top_k logits only.
  virtual void moe_route(const float* router_logits,  // [num_tokens, num_experts]
                         int64_t num_tokens, int64_t num_experts, int64_t top_k,
                         int32_t* expert_ids,         // [num_tokens, top_k]
                         float* expert_weights) = 0;  // [num_tokens, top_k]

  // out[i, :] = src[rows[i], :]
  virtual void gather_rows(const float* src,     // [num_src_rows, dim]
                           const int32_t* rows,  // [num_rows]
                           int64_t num_rows, int64_t dim,
                           float* out) = 0;  // [num_rows, dim]

  // dst[rows[i], :] += weights[i] * src[i, :], applied in order of i.
  virtual void scatter_add_rows(const float* src,      // [num_rows, dim]
                                const int32_t* rows,   // [num_rows]
                                const float* weights,  // [num_rows]
                                int64_t num_rows, int64_t dim,
                                float* dst) = 0;  // [num_dst_rows, dim]
};

}  // namespace tidal::kernels
