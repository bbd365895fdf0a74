#include "engine/profile/timing_backend.h"

#include <chrono>
#include <numeric>
#include <utility>

namespace tidal::profile {

using perf::OpClass;

TimingBackend::TimingBackend(kernels::Backend& inner, const models::ModelConfig& config)
    : inner_(inner),
      num_layers_(config.num_layers),
      num_experts_(config.num_local_experts),
      moe_(config.is_moe()) {}

void TimingBackend::reset() {
  ns_.fill(0);
  calls_.fill(0);
  num_norms_ = 0;
  part_ = Part::attention;
  attention_done_ = false;
  activation_done_ = false;
  num_mlp_linears_ = 0;
}

int64_t TimingBackend::total_nanoseconds() const {
  return std::accumulate(ns_.begin(), ns_.end(), int64_t{0});
}

int64_t TimingBackend::total_calls() const {
  return std::accumulate(calls_.begin(), calls_.end(), int64_t{0});
}

template <typename Fn>
void TimingBackend::timed(OpClass op, Fn&& fn) {
  const auto start = std::chrono::steady_clock::now();
  std::forward<Fn>(fn)();
  const auto end = std::chrono::steady_clock::now();
  ++calls_[static_cast<size_t>(op)];
  ns_[static_cast<size_t>(op)] +=
      std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count();
}

// Norm i (0-based) of a forward: even i < 2L opens a layer's attention half, odd i its MLP half,
// i == 2L is the final norm before the LM head.
void TimingBackend::on_norm() {
  const int64_t i = num_norms_++;
  if (i >= 2 * num_layers_) {
    part_ = Part::head;
  } else if (i % 2 == 0) {
    part_ = Part::attention;
    attention_done_ = false;
  } else {
    part_ = Part::mlp;
    activation_done_ = false;
    num_mlp_linears_ = 0;
  }
}

OpClass TimingBackend::mlp_class(OpClass dense) const {
  return moe_ ? OpClass::moe_experts : dense;
}

void TimingBackend::time_all_reduce(models::Communicator& comm, float* buf, size_t count) {
  timed(OpClass::allreduce, [&] { comm.all_reduce_sum(buf, count); });
}

void TimingBackend::embedding(const float* table, int64_t hidden, const int32_t* token_ids,
                              int64_t num_tokens, float* out) {
  reset();
  timed(OpClass::embedding, [&] { inner_.embedding(table, hidden, token_ids, num_tokens, out); });
}

void TimingBackend::rms_norm(const float* x, const float* weight, int64_t num_rows, int64_t dim,
                             float eps, float* out) {
  on_norm();
  timed(OpClass::norm, [&] { inner_.rms_norm(x, weight, num_rows, dim, eps, out); });
}

void TimingBackend::add_rms_norm(float* residual, const float* x, const float* weight,
                                 int64_t num_rows, int64_t dim, float eps, float* out) {
  on_norm();
  timed(OpClass::norm, [&] { inner_.add_rms_norm(residual, x, weight, num_rows, dim, eps, out); });
}

void TimingBackend::rope(float* q, float* k, const int32_t* positions, int64_t num_tokens,
                         int64_t num_heads, int64_t num_kv_heads, int64_t head_dim,
                         const float* inv_freq) {
  timed(OpClass::rope, [&] {
    inner_.rope(q, k, positions, num_tokens, num_heads, num_kv_heads, head_dim, inv_freq);
  });
}

void TimingBackend::linear(const float* x, int64_t num_tokens, const kernels::LinearView& weight,
                           float* y) {
  OpClass op = OpClass::lm_head;
  if (part_ == Part::attention) {
    op = attention_done_ ? OpClass::o_proj : OpClass::qkv_proj;
  } else if (part_ == Part::mlp) {
    if (moe_ && num_mlp_linears_ == 0 && weight.rows == num_experts_) {
      op = OpClass::moe_router;
    } else {
      op = mlp_class(activation_done_ ? OpClass::mlp_down : OpClass::mlp_up_gate);
    }
    ++num_mlp_linears_;
  }
  timed(op, [&] { inner_.linear(x, num_tokens, weight, y); });
}

void TimingBackend::swiglu(const float* gate, const float* up, int64_t count, float* out) {
  timed(mlp_class(OpClass::mlp_act), [&] { inner_.swiglu(gate, up, count, out); });
  activation_done_ = true;
}

void TimingBackend::add(float* y, const float* x, int64_t count) {
  timed(OpClass::residual_add, [&] { inner_.add(y, x, count); });
}

void TimingBackend::write_kv(const kernels::KvCacheView& kv, int64_t layer, const float* k,
                             const float* v, const int64_t* slot_mapping, int64_t num_tokens) {
  timed(OpClass::attention_prefill,
        [&] { inner_.write_kv(kv, layer, k, v, slot_mapping, num_tokens); });
}

void TimingBackend::paged_attention(const float* q, const kernels::KvCacheView& kv, int64_t layer,
                                    const kernels::AttentionBatch& batch, float scale, float* out) {
  timed(OpClass::attention_prefill,
        [&] { inner_.paged_attention(q, kv, layer, batch, scale, out); });
  attention_done_ = true;
}

void TimingBackend::softmax(float* x, int64_t num_rows, int64_t num_cols) {
  timed(OpClass::moe_router, [&] { inner_.softmax(x, num_rows, num_cols); });
}

void TimingBackend::moe_route(const float* router_logits, int64_t num_tokens, int64_t num_experts,
                              int64_t top_k, int32_t* expert_ids, float* expert_weights) {
  timed(OpClass::moe_router, [&] {
    inner_.moe_route(router_logits, num_tokens, num_experts, top_k, expert_ids, expert_weights);
  });
}

void TimingBackend::gather_rows(const float* src, const int32_t* rows, int64_t num_rows,
                                int64_t dim, float* out) {
  const OpClass op = part_ == Part::head ? OpClass::lm_head : OpClass::moe_experts;
  timed(op, [&] { inner_.gather_rows(src, rows, num_rows, dim, out); });
}

void TimingBackend::scatter_add_rows(const float* src, const int32_t* rows, const float* weights,
                                     int64_t num_rows, int64_t dim, float* dst) {
  timed(OpClass::moe_experts,
        [&] { inner_.scatter_add_rows(src, rows, weights, num_rows, dim, dst); });
}

}  // namespace tidal::profile
