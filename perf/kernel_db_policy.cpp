#include "perf/kernel_db_policy.h"

namespace tidal::perf {
namespace {

bool has_fp8_block_scales(const WeightFormat& format, const ModelSpec& model) {
  return model.quant.method == "fp8" && model.quant.scale_bytes_per_weight > 0.0 &&
         model.quant.dtype == DType::fp8 && format.dtype == DType::fp8 &&
         format.bytes_per_weight > dtype_bytes(DType::fp8);  // served with the checkpoint's scales
}

}  // namespace

bool keep_attention_row(std::string_view attn_dtype, std::string_view kv_cache_dtype,
                        bool kernel_has_bf16_math) {
  if (attn_dtype.empty() || attn_dtype == "bfloat16") return true;
  return !kernel_has_bf16_math && attn_dtype == kv_cache_dtype;
}

bool is_graph_allreduce(std::string_view kernel_source, std::string_view backend) {
  return kernel_source.find("graph") != std::string_view::npos ||
         backend.find("graph") != std::string_view::npos;
}

bool is_gated_moe_kernel(std::string_view kernel_source) {
  return kernel_source.find("nongated") == std::string_view::npos;
}

std::vector<std::string> gemm_dtypes_for(const WeightFormat& format, const ModelSpec& model) {
  switch (format.dtype) {
    case DType::bf16:
    case DType::fp16:
      return {"bfloat16"};
    case DType::fp8:
      return {has_fp8_block_scales(format, model) ? "fp8_block" : "fp8"};
    case DType::int4:
      return {"int4_wo"};
    case DType::fp4:
      if (model.quant.method == "mxfp4") return {"mxfp4", "nvfp4"};
      return {"nvfp4"};
    case DType::int8:
      return {"sq"};
    case DType::fp32:
      return {};
  }
  return {};
}

std::vector<std::string> moe_dtypes_for(const WeightFormat& format, const ModelSpec& model) {
  if (format.dtype == DType::fp4 && model.quant.method == "mxfp4") {
    return {"w4a16_mxfp4", "nvfp4"};
  }
  return gemm_dtypes_for(format, model);
}

std::string kv_cache_dtype_for(DType kv_dtype) {
  switch (kv_dtype) {
    case DType::bf16:
    case DType::fp16:
      return "bfloat16";
    case DType::fp8:
      return "fp8";
    default:
      return "";
  }
}

const std::vector<std::string>& moe_distribution_preference() {
  static const std::vector<std::string> order = {"balanced", "power_law_1.01", "power_law_1.2"};
  return order;
}

}  // namespace tidal::perf
