#include "kernels/cpu/cpu_backend.h"

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/embedding.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/kv_write.h"
#include "kernels/cpu/moe_routing.h"
#include "kernels/cpu/paged_attention.h"
#include "kernels/cpu/rms_norm.h"
#include "kernels/cpu/rope.h"
#include "kernels/cpu/softmax.h"

namespace tidal::kernels::cpu {

void ReferenceBackend::embedding(const float* table, int64_t hidden, const int32_t* token_ids,
                                 int64_t num_tokens, float* out) {
  reference::embedding(table, hidden, token_ids, num_tokens, out);
}

void ReferenceBackend::rms_norm(const float* x, const float* weight, int64_t num_rows, int64_t dim,
                                float eps, float* out) {
  reference::rms_norm(x, weight, num_rows, dim, eps, out);
}

void ReferenceBackend::add_rms_norm(float* residual, const float* x, const float* weight,
                                    int64_t num_rows, int64_t dim, float eps, float* out) {
  reference::add_rms_norm(residual, x, weight, num_rows, dim, eps, out);
}

void ReferenceBackend::rope(float* q, float* k, const int32_t* positions, int64_t num_tokens,
                            int64_t num_heads, int64_t num_kv_heads, int64_t head_dim,
                            const float* inv_freq) {
  reference::rope(q, k, positions, num_tokens, num_heads, num_kv_heads, head_dim, inv_freq);
}

void ReferenceBackend::linear(const float* x, int64_t num_tokens, const LinearView& weight,
                              float* y) {
  reference::linear(x, num_tokens, weight, y);
}

void ReferenceBackend::swiglu(const float* gate, const float* up, int64_t count, float* out) {
  reference::swiglu(gate, up, count, out);
}

void ReferenceBackend::add(float* y, const float* x, int64_t count) {
  reference::add(y, x, count);
}

void ReferenceBackend::write_kv(const KvCacheView& kv, int64_t layer, const float* k,
                                const float* v, const int64_t* slot_mapping, int64_t num_tokens) {
  reference::write_kv(kv, layer, k, v, slot_mapping, num_tokens);
}

void ReferenceBackend::paged_attention(const float* q, const KvCacheView& kv, int64_t layer,
                                       const AttentionBatch& batch, float scale, float* out) {
  reference::paged_attention(q, kv, layer, batch, scale, out);
}

void ReferenceBackend::softmax(float* x, int64_t num_rows, int64_t num_cols) {
  reference::softmax(x, num_rows, num_cols);
}

void ReferenceBackend::moe_route(const float* router_logits, int64_t num_tokens,
                                 int64_t num_experts, int64_t top_k, int32_t* expert_ids,
                                 float* expert_weights) {
  reference::moe_route(router_logits, num_tokens, num_experts, top_k, expert_ids, expert_weights);
}

void ReferenceBackend::gather_rows(const float* src, const int32_t* rows, int64_t num_rows,
                                   int64_t dim, float* out) {
  reference::gather_rows(src, rows, num_rows, dim, out);
}

void ReferenceBackend::scatter_add_rows(const float* src, const int32_t* rows, const float* weights,
                                        int64_t num_rows, int64_t dim, float* dst) {
  reference::scatter_add_rows(src, rows, weights, num_rows, dim, dst);
}

}  // namespace tidal::kernels::cpu
