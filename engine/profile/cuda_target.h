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

#include "engine/profile/forwarding_backend.h"
#include "engine/profile/profiler.h"
#include "kernels/backend.h"
#include "perf/gpu_catalog.h"
#include "perf/profile.h"

namespace tidal::profile {

// A kernels::Backend decorator that runs each operator on `inner`, then waits until the
// inner backend's memory (its stream) is idle. memory() is the inner backend's.
class SynchronizingBackend final : public ForwardingBackend {
 public:
  explicit SynchronizingBackend(kernels::Backend& inner) : ForwardingBackend(inner) {}

 private:
  void around(const Call& call) override {
    call.run();
    inner().memory().synchronize();
  }
};

// The GPU as a perf device named `device_name`: only pcie_Bps is read by a fully measured
// profile (the CUDA engine has no swap, so nominal PCIe 4.0 x16, 25 GB/s); the other rates are
// nominal H100-class figures for roofline sections the profile does not mark.
perf::GpuSpec cuda_device_spec(const std::string& device_name);

// Measures a profile of options.model on GPU 0: with options.engine.tp > 1 the operators of rank
// 0's shard (its all-reduces left out) and the allreduce table from NCCL all-reduces of
// [tokens, hidden] fp32 across GPUs 0..tp-1 over the token sweep's points
// (engine::measure_nccl_all_reduce); the CPU overhead from real tp-rank CUDA engine steps.
// Same tables and grids as run_profile; provenance backend "tidal-cuda", device = the GPU's
// name. InputError for a bad model or option, a tidal without the CUDA backend (or, for tp > 1,
// NCCL), no device, or tp above the device count.
perf::Profile run_cuda_profile(const ProfileOptions& options, const ProgressFn& progress,
                               std::vector<MeasuredSeries>* measured = nullptr);

}  // namespace tidal::profile
