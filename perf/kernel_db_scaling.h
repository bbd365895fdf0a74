// Roofline times of kernel shapes, used only as ratios: how a measured latency carries over to a
// size beyond the measured range or to a shape the tables lack (kernel_db_lookup.h). The
// formulas and RooflineOptions are the roofline model's (roofline_costs.cpp, and
// roofline_attention.h's attention_work itself), evaluated at any shape.
#pragma once

#include <cstdint>
#include <string_view>

#include "perf/gpu_catalog.h"
#include "perf/kernel_db_tables.h"
#include "perf/roofline_model.h"

namespace tidal::perf {

class KernelScaling {
 public:
  KernelScaling(const GpuSpec& gpu, const RooflineOptions& options);

  // [m, k] x [k, n] with weights of gemm_dtype.
  double gemm(double m, double n, double k, std::string_view gemm_dtype) const;
  // One fused MoE layer of `shape` over `tokens` tokens: the active experts' FLOPs, the touched
  // experts' weight bytes (uniform routing), per GPU at shape.tp and shape.ep (num_experts / ep
  // experts on the GPU, `tokens` the whole EP group's).
  double moe(double tokens, const MoeKey& shape) const;
  // One layer's attention for `batch` sequences, each a chunk of c new tokens on p cached ones.
  double attention(const AttentionKey& shape, double batch, double c, double p) const;
  // One all-reduce of `elements` bf16 values across num_gpus GPUs (ring).
  double allreduce(double elements, int64_t num_gpus) const;
  // One all-to-all of a send buffer of `elements` bf16 values per GPU across num_gpus GPUs (the
  // share (n - 1) / n leaves the GPU).
  double alltoall(double elements, int64_t num_gpus) const;

 private:
  double roofline(double flops, double peak_flops, double compute_eff, double bytes,
                  double memory_eff) const;

  GpuSpec gpu_;
  RooflineOptions options_;
};

// Bytes per weight and the tensor FLOP/s of a gemm_dtype / moe_dtype name (unknown names: bf16).
double kernel_weight_bytes(std::string_view dtype);
double kernel_peak_flops(std::string_view dtype, const GpuSpec& gpu);

}  // namespace tidal::perf
