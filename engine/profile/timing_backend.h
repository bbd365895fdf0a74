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

#include "engine/profile/forwarding_backend.h"
#include "kernels/backend.h"
#include "models/communicator.h"
#include "models/config.h"
#include "perf/step_time_model.h"

namespace tidal::profile {

class TimingBackend final : public ForwardingBackend {
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

 private:
  enum class Part : uint8_t { attention, mlp, head };
  void around(const Call& call) override;
  // The class a call is charged to; moves the position in the forward past it.
  perf::OpClass classify(const Call& call);
  // Time fn() and charge it to `op`.
  template <typename Fn>
  void timed(perf::OpClass op, Fn&& fn);
  void on_norm();
  perf::OpClass mlp_class(perf::OpClass dense) const;

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
