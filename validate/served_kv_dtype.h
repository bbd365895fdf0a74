// The KV-cache dtype a measured row's engine ran with: measured.csv does not record it, but the
// tool that set its runs up does.
#pragma once

#include <optional>
#include <string>

namespace tidal::validate {

struct MeasuredRun;

// measured.csv comes from AIConfigurator's silicon runs, set up as its generator writes them.
// Its SDK (aiconfigurator sdk `_infer_quant_modes_from_raw_config`, 2026) gives a checkpoint
// quantized as fp8, fp8_block or nvfp4 an FP8 FMHA and an FP8 KV cache, and the generator passes
// that KV dtype to each engine (generator/rule_plugin: SGLang `--kv-cache-dtype fp8_e4m3`,
// TensorRT-LLM `kv_cache_config.dtype`, vLLM `--kv-cache-dtype`; bf16 becomes the engines'
// "auto"). So a row of precision fp8 (an FP8 checkpoint) or fp4 (an NVFP4 one: no engine
// quantizes to NVFP4 as it loads) ran an FP8 KV cache, except where fp4 is the checkpoint's own
// MXFP4 (gpt-oss: `quantization_config.quant_method` "mxfp4" in `model_config`, which the SDK
// gives no FP8 KV). Returns "fp8" for those rows, nullopt for the others (bf16, int4, MXFP4: the
// KV stays bf16). `model_config` is the row's model's config.json; it is read only for fp4 rows,
// and one that cannot be read or is not JSON is an InputError naming it.
std::optional<std::string> served_kv_dtype(const MeasuredRun& run, const std::string& model_config);

}  // namespace tidal::validate
