// The numeric format each part of a model's weights is served in: the deployment's weight dtype
// for the parts the checkpoint quantizes, bf16 for those it keeps (its modules_to_not_convert),
// with the checkpoint's block or group scales counted when the served dtype is its own.
#pragma once

#include "perf/dtype.h"
#include "perf/model_spec.h"

namespace tidal::perf {

struct WeightFormat {
  DType dtype = DType::bf16;
  double bytes_per_weight = 2.0;  // dtype bytes plus quantization scales
};

struct WeightFormats {
  WeightFormat attention;       // q/k/v/o (MLA: its five projections)
  WeightFormat dense_mlp;       // dense MLPs
  WeightFormat experts;         // routed experts
  WeightFormat shared_experts;  // shared experts
};

// Embeddings, the LM head, norms and MoE routers are never quantized: kUnquantizedWeight.
inline constexpr WeightFormat kUnquantizedWeight{DType::bf16, 2.0};

WeightFormats weight_formats(const ModelSpec& model, DType weight_dtype);

}  // namespace tidal::perf
