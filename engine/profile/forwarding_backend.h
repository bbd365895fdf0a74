// The base of the profilers' kernels::Backend decorators (TimingBackend, SynchronizingBackend):
// every operator runs on an inner backend, handed to one hook, around(), that a decorator
// overrides to act around the call (time it, wait for the device after it). name() and
// memory() are the inner backend's.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>

#include "kernels/backend.h"

namespace tidal::profile {

class ForwardingBackend : public kernels::Backend {
 public:
  // Which operator a call is.
  enum class Op : uint8_t {
    embedding,
    rms_norm,
    add_rms_norm,
    rope,
    linear,
    swiglu,
    add,
    write_kv,
    paged_attention,
    softmax,
    moe_route,
    gather_rows,
    scatter_add_rows,
  };

  // One operator call: which, the rows of its weight (linear only; 0 otherwise), and run(),
  // which performs it on the inner backend (call it exactly once).
  class Call {
   public:
    template <typename Fn>
    Call(Op op, int64_t weight_rows, Fn& fn)
        : op_(op),
          weight_rows_(weight_rows),
          fn_(&fn),
          invoke_([](void* f) { (*static_cast<Fn*>(f))(); }) {}
    Op op() const { return op_; }
    int64_t weight_rows() const { return weight_rows_; }
    void run() const { invoke_(fn_); }

   private:
    Op op_;
    int64_t weight_rows_;
    void* fn_;
    void (*invoke_)(void*);
  };

  explicit ForwardingBackend(kernels::Backend& inner) : inner_(inner) {}

  std::string_view name() const override { return inner_.name(); }
  kernels::BackendMemory& memory() override { return inner_.memory(); }
  void embedding(const float* table, int64_t hidden, const int32_t* token_ids, int64_t num_tokens,
                 float* out) final;
  void rms_norm(const float* x, const float* weight, int64_t num_rows, int64_t dim, float eps,
                float* out) final;
  void add_rms_norm(float* residual, const float* x, const float* weight, int64_t num_rows,
                    int64_t dim, float eps, float* out) final;
  void rope(float* q, float* k, const int32_t* positions, int64_t num_tokens, int64_t num_heads,
            int64_t num_kv_heads, int64_t head_dim, const float* inv_freq) final;
  void linear(const float* x, int64_t num_tokens, const kernels::LinearView& weight,
              float* y) final;
  void swiglu(const float* gate, const float* up, int64_t count, float* out) final;
  void add(float* y, const float* x, int64_t count) final;
  void write_kv(const kernels::KvCacheView& kv, int64_t layer, const float* k, const float* v,
                const int64_t* slot_mapping, int64_t num_tokens) final;
  void paged_attention(const float* q, const kernels::KvCacheView& kv, int64_t layer,
                       const kernels::AttentionBatch& batch, float scale, float* out) final;
  void softmax(float* x, int64_t num_rows, int64_t num_cols) final;
  void moe_route(const float* router_logits, int64_t num_tokens, int64_t num_experts, int64_t top_k,
                 int32_t* expert_ids, float* expert_weights) final;
  void gather_rows(const float* src, const int32_t* rows, int64_t num_rows, int64_t dim,
                   float* out) final;
  void scatter_add_rows(const float* src, const int32_t* rows, const float* weights,
                        int64_t num_rows, int64_t dim, float* dst) final;

 protected:
  kernels::Backend& inner() { return inner_; }

  // Performs `call` (call.run()) with whatever the decorator adds around it.
  virtual void around(const Call& call) = 0;

 private:
  template <typename Fn>
  void dispatch(Op op, Fn&& fn, int64_t weight_rows = 0) {
    around(Call(op, weight_rows, fn));
  }

  kernels::Backend& inner_;
};

}  // namespace tidal::profile
