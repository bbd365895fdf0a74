// `tidal profile --backend cuda`: a step-time profile measured on GPU 0 through the engine's
// CUDA rank (engine/cuda_ranks.h: CudaBackend, weights copied to the device, a device KV arena).
// The counterpart of cpu_target.h plus the profile run itself, sharing the CPU profiler's parts:
// TimingBackend attributes each operator of the paged forward to its class, over a
// SynchronizingBackend that waits for the device after every operator, so the host clock
// around a call measures launch + kernel (the profile subtracts the cost of an idle
// synchronize, measured first). Built with every tidal: without the CUDA backend or a device,
// run_cuda_profile is the engine's InputError saying so.
#pragma once

#include <string>

#include "engine/profile/profiler.h"
#include "kernels/backend.h"
#include "sim/perf/gpu_catalog.h"
#include "sim/perf/profile.h"

namespace tidal::profile {

// A kernels::Backend decorator that runs each operator on `inner`, then waits until the
// inner backend's memory (its stream) is idle. memory() is the inner backend's.
class SynchronizingBackend final : public kernels::Backend {
 public:
  explicit SynchronizingBackend(kernels::Backend& inner) : inner_(inner) {}
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
  kernels::Backend& inner_;
};

// The GPU as a perf device named `device_name`: only pcie_Bps is read by a fully measured
// profile (the CUDA engine has no swap, so nominal PCIe 4.0 x16, 25 GB/s); the other rates are
// nominal H100-class figures for roofline sections the profile does not mark.
perf::GpuSpec cuda_device_spec(const std::string& device_name);

// Measures a profile of options.model on GPU 0 (options.engine.tp must be 1: the NCCL
// all-reduce is not profiled yet). Same tables and grids as run_profile; provenance backend
// "tidal-cuda", device = the GPU's name. InputError for a bad model or option, a tidal without
// the CUDA backend, or no device.
perf::Profile run_cuda_profile(const ProfileOptions& options, const ProgressFn& progress,
                               std::vector<MeasuredSeries>* measured = nullptr);

}  // namespace tidal::profile
