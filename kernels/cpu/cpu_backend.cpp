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

CpuBackend::CpuBackend(int num_threads, GemmPath gemm_path)
    : pool_(num_threads), gemm_path_(gemm_path) {}

void CpuBackend::embedding(const float* table, int64_t hidden, const int32_t* token_ids,
                           int64_t num_tokens, float* out) {
  cpu::embedding(pool_, table, hidden, token_ids, num_tokens, out);
}

void CpuBackend::rms_norm(const float* x, const float* weight, int64_t num_rows, int64_t dim,
                          float eps, float* out) {
  cpu::rms_norm(pool_, x, weight, num_rows, dim, eps, out);
}

void CpuBackend::add_rms_norm(float* residual, const float* x, const float* weight,
                              int64_t num_rows, int64_t dim, float eps, float* out) {
  cpu::add_rms_norm(pool_, residual, x, weight, num_rows, dim, eps, out);
}

void CpuBackend::rope(float* q, float* k, const int32_t* positions, int64_t num_tokens,
                      int64_t num_heads, int64_t num_kv_heads, int64_t head_dim,
                      const float* inv_freq) {
  cpu::rope(pool_, q, k, positions, num_tokens, num_heads, num_kv_heads, head_dim, inv_freq);
}

void CpuBackend::linear(const float* x, int64_t num_tokens, const LinearView& weight, float* y) {
  cpu::linear(pool_, x, num_tokens, weight, y, gemm_path_);
}

void CpuBackend::swiglu(const float* gate, const float* up, int64_t count, float* out) {
  cpu::swiglu(pool_, gate, up, count, out);
}

void CpuBackend::add(float* y, const float* x, int64_t count) {
  cpu::add(pool_, y, x, count);
}

void CpuBackend::write_kv(const KvCacheView& kv, int64_t layer, const float* k, const float* v,
                          const int64_t* slot_mapping, int64_t num_tokens) {
  cpu::write_kv(pool_, kv, layer, k, v, slot_mapping, num_tokens);
}

void CpuBackend::paged_attention(const float* q, const KvCacheView& kv, int64_t layer,
                                 const AttentionBatch& batch, float scale, float* out) {
  cpu::paged_attention(pool_, q, kv, layer, batch, scale, out);
}

void CpuBackend::softmax(float* x, int64_t num_rows, int64_t num_cols) {
  cpu::softmax(pool_, x, num_rows, num_cols);
}

void CpuBackend::moe_route(const float* router_logits, int64_t num_tokens, int64_t num_experts,
                           int64_t top_k, int32_t* expert_ids, float* expert_weights) {
  cpu::moe_route(pool_, router_logits, num_tokens, num_experts, top_k, expert_ids, expert_weights);
}

void CpuBackend::gather_rows(const float* src, const int32_t* rows, int64_t num_rows, int64_t dim,
                             float* out) {
  cpu::gather_rows(pool_, src, rows, num_rows, dim, out);
}

void CpuBackend::scatter_add_rows(const float* src, const int32_t* rows, const float* weights,
                                  int64_t num_rows, int64_t dim, float* dst) {
  cpu::scatter_add_rows(pool_, src, rows, weights, num_rows, dim, dst);
}

}  // namespace tidal::kernels::cpu
