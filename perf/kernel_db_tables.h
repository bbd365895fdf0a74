// The measured kernel latencies of one (GPU, engine) from the kernel database, loaded into
// curves keyed by kernel shape (latencies converted from milliseconds to seconds).
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "perf/gpu_catalog.h"
#include "perf/kernel_db_curve.h"
#include "perf/kernel_db_folders.h"

namespace tidal::perf {

struct GemmKey {
  std::string dtype;  // gemm_dtype: "bfloat16", "fp8", "fp8_block", "int4_wo", "nvfp4", ...
  int64_t n = 0;      // output features
  int64_t k = 0;      // input features
  auto operator<=>(const GemmKey&) const = default;
};

// One layer's attention on one GPU.
struct AttentionKey {
  std::string kv_dtype;  // kv_cache_dtype: "bfloat16", "fp8"
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;
  int64_t head_dim = 0;
  int64_t window = 0;  // 0 = full attention
  auto operator<=>(const AttentionKey&) const = default;
};

// One fused MoE layer (routed experts) as the collectors ran it.
struct MoeKey {
  std::string dtype;  // moe_dtype: "bfloat16", "fp8_block", "w4a16_mxfp4", ...
  int64_t hidden = 0;
  int64_t inter = 0;  // one expert's width, before the TP split
  int64_t topk = 0;
  int64_t num_experts = 0;
  int64_t tp = 1;            // moe_tp_size
  int64_t ep = 1;            // moe_ep_size
  std::string distribution;  // "balanced", "power_law_1.01", "power_law_1.2"
  bool gated = true;         // SwiGLU experts (false: TRT-LLM's nongated kernels)
  auto operator<=>(const MoeKey&) const = default;
};

struct KernelDbTables {
  KernelDbFolders folders;
  std::string source;  // the kernels folder's manifest "source" (upstream repository and commit)
  std::map<GemmKey, MeasuredCurve> gemm;                   // (dtype, n, k) -> over m
  std::map<AttentionKey, CurveGrid> context_attention;     // shape -> (batch, isl)
  std::map<AttentionKey, CurveGrid> generation_attention;  // shape -> (batch, step = context)
  std::map<MoeKey, MeasuredCurve> moe;                     // shape -> over num_tokens
  std::map<int64_t, MeasuredCurve> custom_allreduce;       // num_gpus -> over elements (bf16)
  std::map<int64_t, MeasuredCurve> nccl_allreduce;         // num_gpus -> over elements (half)
  std::map<int64_t, MeasuredCurve> nccl_alltoall;          // num_gpus -> over elements per GPU
  std::vector<std::string> missing_files;                  // tables absent from the folders
};

// Loads the tables of `folders` strictly: a malformed header or row, or a missing column, is an
// InputError naming the file and line. A table file the folder lacks (upstream collected none)
// is listed in missing_files and its operators fall back to the roofline.
KernelDbTables load_kernel_db_tables(const KernelDbFolders& folders);

// resolve_kernel_db_folders + load_kernel_db_tables, loaded once per process for each set of
// folders (several pools pricing from one GPU and engine share one copy). Thread-safe.
std::shared_ptr<const KernelDbTables> kernel_db_tables(const KernelDbSpec& spec,
                                                       const GpuSpec& gpu);

}  // namespace tidal::perf
