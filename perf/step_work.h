// What a step does on the hardware, by the roofline's counts: FLOPs and HBM bytes per GPU, and
// the GPU's peaks they are measured against. The simulator divides them by each step's
// predicted time, whatever model priced it, for model FLOP and bandwidth utilization (MFU, MBU;
// docs/run-output.md, "Load").
#pragma once

#include <span>

#include "perf/gpu_catalog.h"
#include "perf/memory_plan.h"
#include "perf/model_catalog.h"
#include "perf/op_work.h"
#include "perf/roofline_costs.h"
#include "perf/step_time_model.h"

namespace tidal::perf {

class StepWorkCounter {
 public:
  // InputError as RooflineCosts for a deployment the model cannot run (tp against heads).
  StepWorkCounter(const ModelSpec& model, const GpuSpec& gpu, const Deployment& deployment);

  // FLOPs and HBM bytes of one step on one GPU of the replica.
  // Not thread-safe: it remembers the token part of the work between calls (TokenWorkMemo).
  OpWork step_work(std::span<const SeqWork> batch) const { return costs_.step_work(batch, &memo_); }

  // Whether step_work follows from a batch's RankSums (RooflineCosts::prices_by_sums).
  bool prices_by_sums() const { return prices_by_sums_; }
  // step_work of the batch `sums` sums; prices_by_sums() only. Bit-identical.
  OpWork step_work(const RankSums& sums) const { return costs_.rank_work(sums, &memo_); }
  // Peak FLOP/s of one GPU at the tensor rate of the served weights' format (the rate the
  // roofline prices GEMMs at), and its memory bandwidth in bytes/s.
  double peak_flops() const { return costs_.gemm_peak_flops(); }
  double peak_bandwidth_Bps() const { return peak_bandwidth_Bps_; }

 private:
  RooflineCosts costs_;
  double peak_bandwidth_Bps_;
  bool prices_by_sums_;
  mutable TokenWorkMemo memo_;
};

}  // namespace tidal::perf
