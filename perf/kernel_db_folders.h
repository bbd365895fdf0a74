// Which folders of the measured kernel database (../shared/profiles/aiconfigurator/, layout in
// its README.md) one (GPU, engine) prices from: `<dir>/<gpu>/<engine>-<version>/` for the
// kernels and the engine's own all-reduce, `<dir>/<gpu>/nccl/` for NCCL's.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perf/gpu_catalog.h"

namespace tidal::perf {

// A pool's `perf: {"kind": "kernel_db", ...}`: the database folder and the engine whose kernels
// it prices.
struct KernelDbSpec {
  std::string dir;             // holds h100_sxm/, h200_sxm/, ...
  std::string engine;          // "vllm", "sglang" or "trtllm"
  std::string engine_version;  // "" = the single version the GPU's folder holds
  // The kernels' dtypes as the tables name them (gemm_perf's gemm_dtype, moe_perf's moe_dtype),
  // when the deployment ran other kernels than its weights' format suggests (measured.csv's
  // gemm_quant_mode / moe_quant_mode say which), tried before the weights' own; "" = chosen from
  // the weights (kernel_db_policy).
  std::string gemm_dtype;
  std::string moe_dtype;
};

struct KernelDbFolders {
  std::string kernel_gpu;      // e.g. "h200_sxm"; "b200_sxm" for GB200
  std::string collective_gpu;  // the GPU's own folder: "gb200" for GB200, else kernel_gpu
  std::string engine_folder;   // e.g. "vllm-0.19.0"
  std::string engine_version;  // e.g. "0.19.0": the version the kernels were measured on
  std::string kernels_dir;     // <dir>/<kernel_gpu>/<engine_folder>: GEMM, attention, MoE
  std::string allreduce_dir;   // <dir>/<collective_gpu>/<engine_folder>: the engine's all-reduce
  std::string nccl_dir;        // <dir>/<collective_gpu>/nccl
};

// "a, b, c" (error messages and coverage details).
std::string comma_separated(const std::vector<std::string>& items);

// tidal's catalog names for the database's GPU folders, in the README's order:
// {"H100-SXM", "h100_sxm"}, {"H200", "h200_sxm"}, {"B200", "b200_sxm"}, {"A100-80GB",
// "a100_sxm"}, {"GB200", "gb200"} (GB200 prices kernels from b200_sxm: the same chip).
const std::vector<std::pair<std::string, std::string>>& kernel_db_gpu_folders();

// The catalog name of the GPU whose kernel tables are the same chip's as `folders.kernel_gpu`'s,
// when `spec.dir` holds the same engine folder (engine and version) for it; "" otherwise.
// H100-SXM and H200 are one GH100 die (132 SMs at the same clocks, the same tensor cores; the
// H200 has 141 GB of HBM3e at 4.8 TB/s against 80 GB of HBM3 at 3.35 TB/s: NVIDIA's H100 and
// H200 datasheets), so a kernel one's tables lack is priced from the other's, scaled by the
// roofline from that GPU to this one (kernel_db_lookup.h, MoeLookup). GB200 already prices its
// kernels from b200_sxm.
std::string same_chip_gpu(const KernelDbSpec& spec, const KernelDbFolders& folders);

// Resolves the folders, checking that they exist. InputErrors (prefixed "kernel_db: "): a
// missing dir; a GPU the database lacks (listing the GPUs its folders hold); an engine other than
// vllm, sglang, trtllm; a version the GPU's folder lacks, or several versions and none chosen
// (listing those present).
KernelDbFolders resolve_kernel_db_folders(const KernelDbSpec& spec, const GpuSpec& gpu);

}  // namespace tidal::perf
