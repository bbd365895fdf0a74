// The KV-cache dtype a measured row's engine ran with when the row does not say: the one the
// served checkpoint declares, for the engines that follow it by default.
#pragma once

#include <optional>
#include <string>

namespace tidal::validate {

struct MeasuredRun;

// A measured.csv row of precision fp4 served an NVFP4 checkpoint (neither engine quantizes to
// NVFP4 at load time); NVIDIA's ModelOpt ones, `nvidia/<name>-NVFP4`, mostly quantize the KV
// cache to FP8 (`kv_cache_quant_algo: FP8` in hf_quant_config.json, or `kv_cache_scheme` of 8-bit
// floats in config.json's quantization_config). vLLM and TensorRT-LLM take that dtype when none
// is given (vLLM PR #29980, merged 2025-12: kv_cache_dtype "auto" reads hf_quant_config.json;
// TensorRT-LLM KvCacheConfig.dtype "auto" keeps the checkpoint's kv_cache_quant_algo, PR #16240).
// Returns "fp8" for such a row when `configs_dir` holds that checkpoint's files and they say so;
// nullopt otherwise (other engines, precisions, or no such checkpoint: the KV stays bf16). A file
// that is there but not JSON is an InputError naming it.
std::optional<std::string> served_kv_dtype(const MeasuredRun& run, const std::string& configs_dir);

}  // namespace tidal::validate
