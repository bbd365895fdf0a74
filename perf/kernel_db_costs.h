// Step costs priced from the measured kernels of a real engine on a real GPU (the kernel
// database, kernel_db_tables.h): each GEMM of a layer by its (m, n, k, dtype), prefill and decode
// attention by batch, length and heads, the MoE layer as the fused kernel the engine runs, the
// tensor-parallel all-reduce by message size. What the tables do not hold (elementwise ops,
// sampling, CPU overhead, MLA attention, a dtype they lack) is the roofline model's, and
// coverage() says which is which and why. Attention layers of a kind the tables hold no kernels
// for (MLA, Gated DeltaNet) take the roofline's time but never less than the engine's measured
// kernel of one head at the same batch and length (AttentionFloor).
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "perf/gpu_catalog.h"
#include "perf/kernel_db_coverage.h"
#include "perf/kernel_db_lookup.h"
#include "perf/kernel_db_scaling.h"
#include "perf/kernel_db_tables.h"
#include "perf/memory_plan.h"
#include "perf/model_catalog.h"
#include "perf/roofline_costs.h"
#include "perf/roofline_model.h"
#include "perf/step_costs.h"

namespace tidal::perf {

class KernelDbCosts final : public StepCosts {
 public:
  // Checks the deployment as the roofline does (InputError); resolves every kernel's shape once.
  // `spec`'s gemm_dtype and moe_dtype, when set, are the quantized GEMMs' and the MoE layers'
  // table dtype tried first; where the GPU's tables hold no rows of it (NVFP4 on Hopper, which
  // has no FP4 tensor cores), the dtypes of the weights' own format follow, the kernels the
  // engine runs that checkpoint with on that GPU.
  KernelDbCosts(std::shared_ptr<const KernelDbTables> tables, const KernelDbSpec& spec,
                const ModelSpec& model, const GpuSpec& gpu, const Deployment& deployment,
                const RooflineOptions& fallback_options);

  double token_seconds(OpClass op, int64_t num_tokens) const override;
  double seq_seconds(OpClass op, int64_t count) const override;
  // Decodes: the generation table at batch = number of decodes and step = their mean context.
  // Prefill chunks: each at its own length c as one of n equal sequences of the context table
  // (n = the step's prefill chunks: latency(n, c) / n, so the kernel's fixed cost is paid once
  // per step), plus the roofline's price of attending over the chunk's p cached tokens
  // (roofline(c on p) - roofline(c on 0)). Both are approximations of one varlen kernel over
  // sequences of different lengths. MLA and linear-attention layers: the roofline's, each layer
  // at least the one-head floor at the same batch and lengths.
  AttentionSeconds attention_seconds(std::span<const SeqWork> batch) const override;
  double swap_seconds(int64_t num_blocks) const override;
  // With attention_dp > 1: the routed experts from moe_perf at the deployment's moe_tp and ep
  // over the replica's tokens, and each MoE layer's dispatch and combine from nccl_perf's
  // alltoall (else the roofline's).
  double shared_token_seconds(OpClass op, int64_t num_tokens) const override;

  const KernelDbCoverage& coverage() const { return coverage_; }

 private:
  // The GEMMs behind one op class (several for MLA's projections and shared experts).
  std::vector<std::string> gemm_dtypes(const WeightFormat& format) const;
  // One MoE layer's routed experts from moe_perf over num_tokens, scaled by the deployment's
  // expert_load (RooflineCosts::routed_expert_skew_factor).
  double routed_expert_seconds(double num_tokens) const;

  struct GemmClass {
    std::vector<GemmLookup> gemms;
    std::vector<double> shares;  // [gemms.size()]: of the class's layers, those running each
                                 // GEMM (LayerGemms::Gemm::share)
    bool from_tables = false;    // every GEMM found; else the class is the roofline's
  };
  // One kind of attention layer (full or sliding) and how many layers run it.
  struct AttentionLayers {
    double layers = 0;
    std::optional<AttentionLookup> context;
    std::optional<AttentionLookup> generation;
  };
  // The engine's measured attention kernels of one head of 128 (the deployment's KV dtype, full
  // attention): a kernel's fixed cost (launch, one wave, its tail) at each batch and length, the
  // least a layer of attention the tables lack takes. Unset where the tables hold that shape
  // only scaled from another (a fixed cost does not scale with the shape).
  struct AttentionFloor {
    std::optional<AttentionLookup> context;
    std::optional<AttentionLookup> generation;
  };

  // `spec` and `options` for the routed experts' tables of the same chip (kernel_db_folders.h,
  // same_chip_gpu) when this GPU's hold none of their dtypes.
  void resolve_gemms(const KernelScaling& scaling, const KernelDbSpec& spec,
                     const RooflineOptions& options);
  void resolve_attention(const KernelScaling& scaling);
  void build_coverage();
  const GemmClass* gemm_class(OpClass op) const;
  double prefill_layer_seconds(const AttentionLayers& kind, std::span<const SeqWork> batch,
                               int64_t num_prefill) const;
  // One layer's floor for the step (0 for a phase without work or without a floor).
  AttentionSeconds floor_layer_seconds(std::span<const SeqWork> batch, int64_t num_prefill,
                                       int64_t num_decode, double decode_context) const;

  std::shared_ptr<const KernelDbTables> tables_;
  std::string gemm_dtype_;  // KernelDbSpec::gemm_dtype
  std::string moe_dtype_;   // KernelDbSpec::moe_dtype
  ModelSpec model_;
  Deployment deployment_;
  RooflineCosts roofline_;
  KernelScaling scaling_;
  GemmClass qkv_, o_, up_gate_, down_, router_, lm_head_;
  GemmClass shared_experts_;          // up/gate and down of the shared experts, fused
  std::optional<MoeLookup> experts_;  // routed experts
  // The same chip's tables and scaling, when the routed experts are priced from them.
  std::shared_ptr<const KernelDbTables> same_chip_tables_;
  std::optional<KernelScaling> same_chip_scaling_;
  bool experts_from_tables_ = false;
  std::optional<AllReduceLookup> allreduce_;
  std::optional<AllToAllLookup> alltoall_;  // MoE models with attention_dp > 1
  AttentionLayers full_, sliding_;
  AttentionFloor floor_;  // with MLA or linear-attention layers
  bool prefill_from_tables_ = false;
  bool decode_from_tables_ = false;
  std::string attention_fallback_;  // why attention is the roofline's, when it is
  KernelDbCoverage coverage_;
};

}  // namespace tidal::perf
