// A kernels::Backend decorator that times every call of the paged forward pass and charges it
// to the operator class (perf::OpClass) it belongs to. The class of a call follows from where it
// sits in models::PagedModel::forward: the embedding opens a forward; the 2L + 1 norms of an
// L-layer model split it into the attention half of each layer (QKV projections, rope, KV write +
// attention, O projection), the MLP half (up/gate, activation, down, or the MoE router and its
// experts) and, after the final norm, the LM head (row gather + projection). A communicator
// that wraps its all-reduces in time_all_reduce() has them charged to the all-reduce class.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/backend.h"
#include "models/communicator.h"
#include "models/config.h"
#include "sim/perf/step_time_model.h"

namespace tidal::profile {

class TimingBackend final : public kernels::Backend {
 public:
  // `inner` does the work; `config` is the (unsharded) model the forward runs.
  TimingBackend(kernels::Backend& inner, const models::ModelConfig& config);

  // Zeroes the per-class totals (call before each forward).
  void reset();
  // Nanoseconds spent in each class since reset(); attention (KV write + paged attention) is
  // charged to attention_prefill, whatever the batch holds.
  int64_t nanoseconds(perf::OpClass op) const { return ns_[static_cast<size_t>(op)]; }
  int64_t total_nanoseconds() const;
  // Backend calls timed since reset(), per class and in all.
  int64_t num_calls(perf::OpClass op) const { return calls_[static_cast<size_t>(op)]; }
  int64_t total_calls() const;

  // comm.all_reduce_sum(buf, count), charged to OpClass::allreduce (the forward's communicator
  // calls it; buf: [count]).
  void time_all_reduce(models::Communicator& comm, float* buf, size_t count);

  std::string_view name() const override { return inner_.name(); }
  kernels::BackendMemory& memory() override { return inner_.memory(); }
  void embedding(const float* table, int64_t hidden, const int32_t* token_ids, int64_t num_tokens,
                 float* out) override;
  void rms_norm(const float* x, const float* weight, int64_t num_rows, int64_t dim, float eps,
                float* out) override;
  void add_rms_norm(float* residual, const float* x, const float* weight, int64_t num_rows,
                    int64_t dim, float eps, float* out) override;
  void rope(float* q, float* k, const int32_t* positions, int64_t num_tokens, int64_t num_heads,
            int64_t num_kv_heads, int64_t head_dim, const float* inv_freq) override;
  void linear(const float* x, int64_t num_tokens, const kernels::LinearView& weight,
              float* y) override;
  void swiglu(const float* gate, const float* up, int64_t count, float* out) override;
  void add(float* y, const float* x, int64_t count) override;
  void write_kv(const kernels::KvCacheView& kv, int64_t layer, const float* k, const float* v,
                const int64_t* slot_mapping, int64_t num_tokens) override;
  void paged_attention(const float* q, const kernels::KvCacheView& kv, int64_t layer,
                       const kernels::AttentionBatch& batch, float scale, float* out) override;
  void softmax(float* x, int64_t num_rows, int64_t num_cols) override;
  void moe_route(const float* router_logits, int64_t num_tokens, int64_t num_experts, int64_t top_k,
                 int32_t* expert_ids, float* expert_weights) override;
  void gather_rows(const float* src, const int32_t* rows, int64_t num_rows, int64_t dim,
                   float* out) override;
  void scatter_add_rows(const float* src, const int32_t* rows, const float* weights,
                        int64_t num_rows, int64_t dim, float* dst) override;

 private:
  enum class Part : uint8_t { attention, mlp, head };
  // Time fn() and charge it to `op`.
  template <typename Fn>
  void timed(perf::OpClass op, Fn&& fn);
  void on_norm();
  perf::OpClass mlp_class(perf::OpClass dense) const;

  kernels::Backend& inner_;
  int64_t num_layers_;
  int64_t num_experts_;
  bool moe_;
  std::array<int64_t, perf::kNumOpClasses> ns_{};
  std::array<int64_t, perf::kNumOpClasses> calls_{};
  int64_t num_norms_ = 0;  // norms seen since the embedding
  Part part_ = Part::attention;
  bool attention_done_ = false;   // attention half: the paged attention already ran
  bool activation_done_ = false;  // MLP half: the activation already ran
  int64_t num_mlp_linears_ = 0;   // MLP half: projections so far
};

}  // namespace tidal::profile
