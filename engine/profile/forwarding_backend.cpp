#include "engine/profile/forwarding_backend.h"

namespace tidal::profile {

void ForwardingBackend::embedding(const float* table, int64_t hidden, const int32_t* token_ids,
                                  int64_t num_tokens, float* out) {
  dispatch(Op::embedding, [&] { inner_.embedding(table, hidden, token_ids, num_tokens, out); });
}

void ForwardingBackend::rms_norm(const float* x, const float* weight, int64_t num_rows, int64_t dim,
                                 float eps, float* out) {
  dispatch(Op::rms_norm, [&] { inner_.rms_norm(x, weight, num_rows, dim, eps, out); });
}

void ForwardingBackend::add_rms_norm(float* residual, const float* x, const float* weight,
                                     int64_t num_rows, int64_t dim, float eps, float* out) {
  dispatch(Op::add_rms_norm,
           [&] { inner_.add_rms_norm(residual, x, weight, num_rows, dim, eps, out); });
}

void ForwardingBackend::rope(float* q, float* k, const int32_t* positions, int64_t num_tokens,
                             int64_t num_heads, int64_t num_kv_heads, int64_t head_dim,
                             const float* inv_freq) {
  dispatch(Op::rope, [&] {
    inner_.rope(q, k, positions, num_tokens, num_heads, num_kv_heads, head_dim, inv_freq);
  });
}

void ForwardingBackend::linear(const float* x, int64_t num_tokens,
                               const kernels::LinearView& weight, float* y) {
  dispatch(
      Op::linear, [&] { inner_.linear(x, num_tokens, weight, y); }, weight.rows);
}

void ForwardingBackend::swiglu(const float* gate, const float* up, int64_t count, float* out) {
  dispatch(Op::swiglu, [&] { inner_.swiglu(gate, up, count, out); });
}

void ForwardingBackend::add(float* y, const float* x, int64_t count) {
  dispatch(Op::add, [&] { inner_.add(y, x, count); });
}

void ForwardingBackend::write_kv(const kernels::KvCacheView& kv, int64_t layer, const float* k,
                                 const float* v, const int64_t* slot_mapping, int64_t num_tokens) {
  dispatch(Op::write_kv, [&] { inner_.write_kv(kv, layer, k, v, slot_mapping, num_tokens); });
}

void ForwardingBackend::paged_attention(const float* q, const kernels::KvCacheView& kv,
                                        int64_t layer, const kernels::AttentionBatch& batch,
                                        float scale, float* out) {
  dispatch(Op::paged_attention, [&] { inner_.paged_attention(q, kv, layer, batch, scale, out); });
}

void ForwardingBackend::softmax(float* x, int64_t num_rows, int64_t num_cols) {
  dispatch(Op::softmax, [&] { inner_.softmax(x, num_rows, num_cols); });
}

void ForwardingBackend::moe_route(const float* router_logits, int64_t num_tokens,
                                  int64_t num_experts, int64_t top_k, int32_t* expert_ids,
                                  float* expert_weights) {
  dispatch(Op::moe_route, [&] {
    inner_.moe_route(router_logits, num_tokens, num_experts, top_k, expert_ids, expert_weights);
  });
}

void ForwardingBackend::gather_rows(const float* src, const int32_t* rows, int64_t num_rows,
                                    int64_t dim, float* out) {
  dispatch(Op::gather_rows, [&] { inner_.gather_rows(src, rows, num_rows, dim, out); });
}

void ForwardingBackend::scatter_add_rows(const float* src, const int32_t* rows,
                                         const float* weights, int64_t num_rows, int64_t dim,
                                         float* dst) {
  dispatch(Op::scatter_add_rows,
           [&] { inner_.scatter_add_rows(src, rows, weights, num_rows, dim, dst); });
}

}  // namespace tidal::profile
