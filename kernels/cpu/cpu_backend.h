// The CPU backends: CpuBackend runs the optimized kernels on a thread pool (num_threads >= 1;
// results are the same bytes at every thread count, and with the default GemmPath a token's
// results do not depend on the rest of the batch); ReferenceBackend runs the plain reference
// kernels single-threaded (the oracle for backend-level tests).
#pragma once

#include "kernels/backend.h"
#include "kernels/cpu/gemm.h"
#include "kernels/thread_pool.h"

namespace tidal::kernels::cpu {

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(int num_threads, GemmPath gemm_path = GemmPath::batch_invariant);
  int num_threads() const { return pool_.num_threads(); }
  GemmPath gemm_path() const { return gemm_path_; }
  ThreadPool& pool() { return pool_; }

  std::string_view name() const override { return "cpu"; }
  void embedding(const float* table, int64_t hidden, const int32_t* token_ids, int64_t num_tokens,
                 float* out) override;
  void rms_norm(const float* x, const float* weight, int64_t num_rows, int64_t dim, float eps,
                float* out) override;
  void add_rms_norm(float* residual, const float* x, const float* weight, int64_t num_rows,
                    int64_t dim, float eps, float* out) override;
  void rope(float* q, float* k, const int32_t* positions, int64_t num_tokens, int64_t num_heads,
            int64_t num_kv_heads, int64_t head_dim, const float* inv_freq) override;
  void linear(const float* x, int64_t num_tokens, const LinearView& weight, float* y) override;
  void swiglu(const float* gate, const float* up, int64_t count, float* out) override;
  void add(float* y, const float* x, int64_t count) override;
  void write_kv(const KvCacheView& kv, int64_t layer, const float* k, const float* v,
                const int64_t* slot_mapping, int64_t num_tokens) override;
  void paged_attention(const float* q, const KvCacheView& kv, int64_t layer,
                       const AttentionBatch& batch, float scale, float* out) override;
  void softmax(float* x, int64_t num_rows, int64_t num_cols) override;
  void moe_route(const float* router_logits, int64_t num_tokens, int64_t num_experts, int64_t top_k,
                 int32_t* expert_ids, float* expert_weights) override;
  void gather_rows(const float* src, const int32_t* rows, int64_t num_rows, int64_t dim,
                   float* out) override;
  void scatter_add_rows(const float* src, const int32_t* rows, const float* weights,
                        int64_t num_rows, int64_t dim, float* dst) override;

 private:
  ThreadPool pool_;
  GemmPath gemm_path_;
};

class ReferenceBackend final : public Backend {
 public:
  std::string_view name() const override { return "reference"; }
  void embedding(const float* table, int64_t hidden, const int32_t* token_ids, int64_t num_tokens,
                 float* out) override;
  void rms_norm(const float* x, const float* weight, int64_t num_rows, int64_t dim, float eps,
                float* out) override;
  void add_rms_norm(float* residual, const float* x, const float* weight, int64_t num_rows,
                    int64_t dim, float eps, float* out) override;
  void rope(float* q, float* k, const int32_t* positions, int64_t num_tokens, int64_t num_heads,
            int64_t num_kv_heads, int64_t head_dim, const float* inv_freq) override;
  void linear(const float* x, int64_t num_tokens, const LinearView& weight, float* y) override;
  void swiglu(const float* gate, const float* up, int64_t count, float* out) override;
  void add(float* y, const float* x, int64_t count) override;
  void write_kv(const KvCacheView& kv, int64_t layer, const float* k, const float* v,
                const int64_t* slot_mapping, int64_t num_tokens) override;
  void paged_attention(const float* q, const KvCacheView& kv, int64_t layer,
                       const AttentionBatch& batch, float scale, float* out) override;
  void softmax(float* x, int64_t num_rows, int64_t num_cols) override;
  void moe_route(const float* router_logits, int64_t num_tokens, int64_t num_experts, int64_t top_k,
                 int32_t* expert_ids, float* expert_weights) override;
  void gather_rows(const float* src, const int32_t* rows, int64_t num_rows, int64_t dim,
                   float* out) override;
  void scatter_add_rows(const float* src, const int32_t* rows, const float* weights,
                        int64_t num_rows, int64_t dim, float* dst) override;
};

}  // namespace tidal::kernels::cpu
