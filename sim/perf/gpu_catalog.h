// The hardware catalog: one GpuSpec per GPU type, compiled in from catalog/gpus.json.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tidal::perf {

// All rates are dense (no sparsity), per GPU. A FLOP/s figure of 0 means the chip has no tensor
// path for that format (e.g. fp8 on A100); the roofline model then falls back to bf16 compute.
struct GpuSpec {
  std::string name;                  // catalog name, e.g. "H100-SXM"
  std::vector<std::string> aliases;  // other accepted names, e.g. "h100" (Vidur's label)
  double memory_bytes = 0;           // device memory
  double hbm_bandwidth_Bps = 0;      // device memory bandwidth, bytes/s
  double flops_bf16 = 0;             // dense tensor FLOP/s (bf16 and fp16 inputs)
  double flops_fp8 = 0;              // 0 when unsupported
  double flops_int8 = 0;             // dense int8 OP/s, 0 when unsupported
  double flops_fp4 = 0;              // 0 when unsupported
  double interconnect_Bps = 0;       // GPU-GPU bandwidth per GPU, ONE direction, bytes/s
  double pcie_Bps = 0;               // host link bandwidth, one direction, bytes/s
  double price_on_demand_per_h = 0;  // $ per GPU-hour
  double price_spot_per_h = 0;       // $ per GPU-hour, documented example value
  std::string source;                // the main datasheet
  // Where each figure comes from, keyed by the JSON field name ("memory_gib", "flops_fp8_tflops",
  // "price_spot_per_h", ...). Every figure of every entry has one.
  std::map<std::string, std::string> sources;
};

// Looks a GPU up by name or alias, case-insensitively. Unknown names are an InputError
// "<json_path>: unknown GPU "x"; known GPUs: A10G, L4, ...".
const GpuSpec& find_gpu(std::string_view name, const std::string& json_path);

// Catalog names in catalog order.
std::vector<std::string> gpu_names();

}  // namespace tidal::perf
