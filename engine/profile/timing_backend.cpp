#include "engine/profile/timing_backend.h"

#include <chrono>
#include <numeric>
#include <utility>

namespace tidal::profile {

using perf::OpClass;

TimingBackend::TimingBackend(kernels::Backend& inner, const models::ModelConfig& config)
    : ForwardingBackend(inner),
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

OpClass TimingBackend::classify(const Call& call) {
  switch (call.op()) {
    case Op::embedding:
      reset();
      return OpClass::embedding;
    case Op::rms_norm:
    case Op::add_rms_norm:
      on_norm();
      return OpClass::norm;
    case Op::rope:
      return OpClass::rope;
    case Op::linear: {
      OpClass op = OpClass::lm_head;
      if (part_ == Part::attention) {
        op = attention_done_ ? OpClass::o_proj : OpClass::qkv_proj;
      } else if (part_ == Part::mlp) {
        if (moe_ && num_mlp_linears_ == 0 && call.weight_rows() == num_experts_) {
          op = OpClass::moe_router;
        } else {
          op = mlp_class(activation_done_ ? OpClass::mlp_down : OpClass::mlp_up_gate);
        }
        ++num_mlp_linears_;
      }
      return op;
    }
    case Op::swiglu:
      activation_done_ = true;
      return mlp_class(OpClass::mlp_act);
    case Op::add:
      return OpClass::residual_add;
    case Op::write_kv:
      return OpClass::attention_prefill;
    case Op::paged_attention:
      attention_done_ = true;
      return OpClass::attention_prefill;
    case Op::softmax:
    case Op::moe_route:
      return OpClass::moe_router;
    case Op::gather_rows:
      return part_ == Part::head ? OpClass::lm_head : OpClass::moe_experts;
    case Op::scatter_add_rows:
      break;
  }
  return OpClass::moe_experts;  // scatter_add_rows
}

void TimingBackend::around(const Call& call) {
  timed(classify(call), [&] { call.run(); });
}

}  // namespace tidal::profile
