// Weight-only quantization at load time of every linear layer (q/k/v/o, MLP, experts and the
// LM head): int8 / fp8 codes with scales, or the weights rounded to bf16 / fp16 (the weight
// dtype); embeddings, norms and the MoE router stay fp32.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/linear_weight.h"
#include "models/model_weights.h"

namespace tidal::models {

struct QuantSpec {
  // f32, int8, fp8_e4m3 (--quant) or bf16 / fp16 (--weight-dtype)
  kernels::WeightFormat format = kernels::WeightFormat::f32;
  int64_t group_size = 0;  // int8 only: 0 = per-channel, or 32 / 64 / 128
};

// "none" | "f32", "int8" (per-channel), "int8:g32" | "int8:g64" | "int8:g128", "fp8".
// InputError naming `what` (e.g. "--quant") otherwise.
QuantSpec parse_quant_spec(const std::string& text, const std::string& what);
// quant_spec_name: "none", "int8", "int8:gN", "fp8", "bf16", "fp16".
std::string quant_spec_name(const QuantSpec& spec);

// --weight-dtype: "f32" | "bf16" | "fp16" applied to `quant` (parsed from --quant): bf16 / fp16
// set the format of unquantized linears; InputError naming `what` for another word, or for
// bf16 / fp16 together with int8 / fp8 quantization (the codes replace the weights).
QuantSpec apply_weight_dtype(QuantSpec quant, const std::string& text, const std::string& what);

// Quantizes (or rounds to bf16 / fp16) in place; weights must be fp32. InputError when the group
// size does not divide a layer's input width (names the tensor).
void quantize_weights(ModelWeights& weights, const QuantSpec& spec);

}  // namespace tidal::models
