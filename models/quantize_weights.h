// Weight-only quantization at load time of every linear layer (q/k/v/o, MLP, experts and the
// LM head); embeddings, norms and the MoE router stay fp32.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/linear_weight.h"
#include "models/model_weights.h"

namespace tidal::models {

struct QuantSpec {
  kernels::WeightFormat format = kernels::WeightFormat::f32;
  int64_t group_size = 0;  // int8 only: 0 = per-channel, or 32 / 64 / 128
};

// "none" | "f32", "int8" (per-channel), "int8:g32" | "int8:g64" | "int8:g128", "fp8".
// InputError naming `what` (e.g. "--quant") otherwise.
QuantSpec parse_quant_spec(const std::string& text, const std::string& what);
std::string quant_spec_name(const QuantSpec& spec);

// Quantizes in place; weights must be fp32. InputError when the group size does not divide a
// layer's input width (names the tensor).
void quantize_weights(ModelWeights& weights, const QuantSpec& spec);

}  // namespace tidal::models
