// FLOPs and bytes per operator for one deployment, turned into seconds by the roofline rule
// time = max(flops / (peak * compute_eff), bytes / (bandwidth * memory_eff)).
#pragma once

#include <span>

#include "sim/perf/gpu_catalog.h"
#include "sim/perf/memory_plan.h"
#include "sim/perf/model_catalog.h"
#include "sim/perf/roofline_model.h"
#include "sim/perf/step_costs.h"

namespace tidal::perf {

// Work of one operator on one GPU.
struct OpWork {
  double flops = 0.0;
  double bytes = 0.0;
};

class RooflineCosts final : public StepCosts {
 public:
  // Checks the deployment (tp against heads) and the options; InputError on bad values.
  RooflineCosts(const ModelSpec& model, const GpuSpec& gpu, const Deployment& deployment,
                const RooflineOptions& options);

  double token_seconds(OpClass op, int64_t num_tokens) const override;
  double seq_seconds(OpClass op, int64_t count) const override;
  AttentionSeconds attention_seconds(std::span<const SeqWork> batch) const override;
  double swap_seconds(int64_t num_blocks) const override;

  // One layer's work of a token op class (emb/final norm included once in `norm` and
  // `embedding` as per-step work). Exposed for tests and docs.
  OpWork layer_work(OpClass op, int64_t num_tokens) const;
  // One ring all-reduce of `bytes` bytes across the TP group (0 when tp == 1).
  double allreduce_seconds(double bytes) const;
  // The tensor FLOP/s the weight dtype computes at on this GPU.
  double gemm_peak_flops() const { return gemm_peak_flops_; }

 private:
  double gemm_seconds(const OpWork& work, double peak_flops) const;
  double elementwise_seconds(double bytes, double num_kernels) const;

  ModelSpec model_;
  GpuSpec gpu_;
  Deployment deployment_;
  RooflineOptions options_;
  double gemm_peak_flops_ = 0.0;
  double weight_bytes_ = 0.0;        // per weight element
  double kv_bytes_ = 0.0;            // per KV element
  double heads_per_gpu_ = 0.0;       // query heads
  double kv_heads_per_gpu_ = 0.0;    // key/value heads
  double kv_bytes_per_token_ = 0.0;  // whole model, this GPU
};

}  // namespace tidal::perf
