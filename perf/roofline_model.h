// The analytic step-time model: FLOPs and bytes per operator against the GPU's peak rates.
#pragma once

#include <memory>

#include "perf/gpu_catalog.h"
#include "perf/memory_plan.h"
#include "perf/model_catalog.h"
#include "perf/step_time_model.h"

namespace tidal::perf {

// Efficiency factors: the share of the datasheet peak an operator class reaches. An operator
// takes max(flops / (peak_flops * compute_eff), bytes / (bandwidth * memory_eff)). Defaults and
// their reasons are in docs/perf.md.
struct RooflineOptions {
  double gemm_compute_efficiency = 0.70;       // projections, MLP, experts, LM head
  double gemm_memory_efficiency = 0.85;        // weight streaming in small-batch GEMMs
  double attention_compute_efficiency = 0.50;  // FlashAttention-style prefill kernels
  double attention_memory_efficiency = 0.70;   // paged decode attention reading the KV cache
  double elementwise_memory_efficiency =
      0.60;  // norms, rope, activation, adds, embedding, sampling
  double allreduce_bandwidth_efficiency = 0.80;  // ring all-reduce bus bandwidth share
  double allreduce_latency_s = 10e-6;            // per all-reduce
  double alltoall_bandwidth_efficiency = 0.80;   // MoE dispatch/combine share of the link
  double alltoall_latency_s = 10e-6;             // per dispatch or combine
  double pcie_efficiency = 0.80;                 // KV swap copies
  double min_kernel_seconds = 2e-6;              // floor per GPU kernel (launch and tail latency)
  // Per-step CPU overhead (scheduling, input preparation, sampling bookkeeping, output
  // processing): base + per_seq * num_seqs. Defaults fitted to Vidur's A100 cpu_overheads.csv
  // (CodeLlama-34B, TP 2, batch 8..128, medians of schedule + sampler_e2e + prepare_inputs_e2e +
  // process_model_outputs).
  double cpu_overhead_base_s = 0.85e-3;
  double cpu_overhead_per_seq_s = 38.5e-6;
  // step_seconds() uses tables of the per-token and per-sequence costs up to these sizes and
  // computes directly beyond them.
  int64_t max_precomputed_tokens = 16384;
  int64_t max_precomputed_seqs = 2048;
};

// Throws InputError from check_deployment (json_path "deployment", e.g. "deployment.tp: 3 does
// not divide num_heads 32 of llama-3-8b") and for non-positive efficiencies
// ("roofline_options.<name>: ..."). Call check_deployment/plan_memory first with the user's JSON
// path to report errors against the input file. Memory fit is not checked here.
std::unique_ptr<StepTimeModel> make_roofline_model(const ModelSpec& model, const GpuSpec& gpu,
                                                   const Deployment& deployment,
                                                   const RooflineOptions& options = {});

}  // namespace tidal::perf
