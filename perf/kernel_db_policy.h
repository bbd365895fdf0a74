// The choices of which measured rows price a deployment, kept apart from the loading and
// interpolation mechanism (kernel_db_tables.h, kernel_db_curve.h). docs/perf.md, "Kernel-table
// model", gives the reasons.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "perf/dtype.h"
#include "perf/model_spec.h"
#include "perf/weight_formats.h"

namespace tidal::perf {

// --- Rows kept when loading (several rows can measure one shape) ---
// Prefill/decode attention math: bf16 (attn_dtype bfloat16, or no such column), tidal's
// activations, wherever the kernel was measured so over that cache dtype (TRT-LLM's fp8 context
// FMHA is an option tidal does not model). A kernel measured over a cache only with the cache's
// own dtype as its math (SGLang's fa3 and trtllm_mha over an fp8 cache: the backend casts the
// query to the cache's dtype, sglang 0.5 python/sglang/srt/layers/attention/
// flashattention_backend.py, forward_extend/forward_decode) runs that way, and keeps those rows.
// `kernel_has_bf16_math`: the table holds rows of this kernel and cache dtype with bf16 math.
bool keep_attention_row(std::string_view attn_dtype, std::string_view kv_cache_dtype,
                        bool kernel_has_bf16_math);
// The all-reduce variant replayed in a CUDA graph (vLLM's and SGLang's "*_graph" rows): both
// engines capture their decode steps in graphs; the eager rows add the host launch time that
// tidal's cpu_overhead term already holds. Tables with one variant (TRT-LLM's) keep every row.
bool is_graph_allreduce(std::string_view kernel_source, std::string_view backend);
// TRT-LLM measures non-gated MoE kernels (relu^2 experts) beside the gated (SwiGLU) ones.
bool is_gated_moe_kernel(std::string_view kernel_source);
// Several rows of one shape (kernel_db_tables.cpp): the fastest row of the folder's own version
// (of any version when the own has none; the h200 vLLM 0.19.0 tables also hold 0.19.1 rows).
// Kernel timings are disturbed only upwards (clock ramps, interference: repeats in the h200 vLLM
// context table differ up to 5x), and of several kernels measured for one shape (SGLang's fa3
// and triton attention, TRT-LLM's cutlass and min-latency MoE) the engine's autotuning or
// backend choice runs the fast one on that GPU.

// --- Rows a deployment is priced from ---
// gemm_dtype values for weights served in `format`, in order of preference: bf16/fp16
// "bfloat16"; fp8 "fp8_block" for a checkpoint with fp8 block scales (quant.method fp8 and
// scale_bytes_per_weight > 0, served in its own format), else "fp8" (per-tensor); int4
// "int4_wo" (weight-only); fp4 "mxfp4" then "nvfp4" for an mxfp4 checkpoint, else "nvfp4";
// int8 "sq" (W8A8); fp32 none.
std::vector<std::string> gemm_dtypes_for(const WeightFormat& format, const ModelSpec& model);
// moe_dtype values for routed experts in `format`: as gemm_dtypes_for, but fp4 experts of an
// mxfp4 checkpoint are "w4a16_mxfp4" (mxfp4 weights, bf16 activations), then "nvfp4".
std::vector<std::string> moe_dtypes_for(const WeightFormat& format, const ModelSpec& model);
// kv_cache_dtype of a KV cache: bf16/fp16 "bfloat16", fp8 "fp8"; "" for the others (no rows).
std::string kv_cache_dtype_for(DType kv_dtype);
// MoE token distributions, most uniform first: tidal's roofline assumes uniform routing.
const std::vector<std::string>& moe_distribution_preference();

}  // namespace tidal::perf
