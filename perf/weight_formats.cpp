#include "perf/weight_formats.h"

namespace tidal::perf {

WeightFormats weight_formats(const ModelSpec& model, DType weight_dtype) {
  const bool own_format = !model.quant.method.empty() && weight_dtype == model.quant.dtype;
  const WeightFormat served{
      weight_dtype,
      dtype_bytes(weight_dtype) + (own_format ? model.quant.scale_bytes_per_weight : 0.0)};
  auto format_of = [&](bool quantized) { return quantized ? served : kUnquantizedWeight; };
  return {format_of(model.quant.attention), format_of(model.quant.dense_mlp),
          format_of(model.quant.experts), format_of(model.quant.shared_experts)};
}

}  // namespace tidal::perf
