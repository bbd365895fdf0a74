// The hardware catalog: one GpuSpec per GPU type, compiled in from catalog/gpus.json; and GPUs
// described inline in a scenario (the user's own hardware).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

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
  double interconnect_Bps = 0;       // scale-up (NVLink, Infinity Fabric) bandwidth per GPU, ONE
                                     // direction, bytes/s; the PCIe peer path on cards without one
  int64_t nvlink_domain_size = 1;    // GPUs in one scale-up domain (8 on HGX, 72 on NVL72)
  double scale_out_Bps = 0;          // scale-out network (InfiniBand, RoCE) per GPU, one direction,
                                     // bytes/s; 0 = none (inline GPUs only)
  double pcie_Bps = 0;               // host link bandwidth, one direction, bytes/s
  double price_on_demand_per_h = 0;  // $ per GPU-hour (0 = unknown: inline GPUs only)
  double price_spot_per_h = 0;       // $ per GPU-hour, documented example value
  double power_idle_w = 0;           // board power with the model loaded, no kernels running, W
  double power_max_w = 0;            // datasheet TDP / total board power, W (0 = unknown: inline
                                     // GPUs only; energy reports then need the pool's figures)
  std::string source;                // the main datasheet
  // Where each figure comes from, keyed by the JSON field name ("memory_gib", "flops_fp8_tflops",
  // "price_spot_per_h", ...). Every figure of every catalog entry has one.
  std::map<std::string, std::string> sources;
};

// Looks a GPU up by name or alias, case-insensitively. Unknown names are an InputError
// "<json_path>: unknown GPU "x"; known GPUs: A10G, L4, ...".
const GpuSpec& find_gpu(std::string_view name, const std::string& json_path);

// Catalog names in catalog order.
std::vector<std::string> gpu_names();

// A GPU described inline: the keys of a catalog entry with plain numbers instead of
// {"value", "source"} figures (see docs/perf.md, "Inline GPUs"). Required: name, memory_gib,
// hbm_bandwidth_gb_per_s, flops_bf16_tflops; the rest default. Errors are InputErrors
// "<where>: <json_path>.<key>: ...", unknown keys included.
GpuSpec parse_gpu_object(const nlohmann::json& object, const std::string& where,
                         const std::string& json_path);

// A scenario's `gpu` value: a string is a catalog name or alias (find_gpu), an object an inline
// GPU (parse_gpu_object); anything else is an InputError naming "<where>: <json_path>".
GpuSpec resolve_gpu(const nlohmann::json& value, const std::string& where,
                    const std::string& json_path);

}  // namespace tidal::perf
