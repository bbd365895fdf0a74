#include "models/quantize_weights.h"

#include "base/input_error.h"

namespace tidal::models {

QuantSpec parse_quant_spec(const std::string& text, const std::string& what) {
  if (text == "none" || text == "f32") return {kernels::WeightFormat::f32, 0};
  if (text == "int8") return {kernels::WeightFormat::int8, 0};
  if (text == "int8:g32") return {kernels::WeightFormat::int8, 32};
  if (text == "int8:g64") return {kernels::WeightFormat::int8, 64};
  if (text == "int8:g128") return {kernels::WeightFormat::int8, 128};
  if (text == "fp8") return {kernels::WeightFormat::fp8_e4m3, 0};
  throw InputError(what + ": unknown weight quantization '" + text +
                   "' (expected none, int8, int8:g32, int8:g64, int8:g128 or fp8)");
}

std::string quant_spec_name(const QuantSpec& spec) {
  switch (spec.format) {
    case kernels::WeightFormat::f32:
      return "none";
    case kernels::WeightFormat::int8:
      return spec.group_size == 0 ? "int8" : "int8:g" + std::to_string(spec.group_size);
    case kernels::WeightFormat::fp8_e4m3:
      return "fp8";
    case kernels::WeightFormat::bf16:
      return "bf16";
    case kernels::WeightFormat::fp16:
      return "fp16";
  }
  return "none";
}

QuantSpec apply_weight_dtype(QuantSpec quant, const std::string& text, const std::string& what) {
  kernels::WeightFormat format = kernels::WeightFormat::f32;
  if (text == "bf16") {
    format = kernels::WeightFormat::bf16;
  } else if (text == "fp16") {
    format = kernels::WeightFormat::fp16;
  } else if (text != "f32") {
    throw InputError(what + ": unknown weight dtype '" + text + "' (expected f32, bf16 or fp16)");
  }
  if (format == kernels::WeightFormat::f32) return quant;
  if (quant.format != kernels::WeightFormat::f32) {
    throw InputError(what + ": " + text + " weights cannot be combined with --quant " +
                     quant_spec_name(quant) +
                     " (quantized codes replace the weights); drop one of them");
  }
  return QuantSpec{format, 0};
}

void quantize_weights(ModelWeights& weights, const QuantSpec& spec) {
  if (spec.format == kernels::WeightFormat::f32) return;
  // The tied head is a linear layer too: it gets its own quantized copy of the embeddings.
  if (!weights.lm_head) {
    weights.lm_head = kernels::make_f32_linear(weights.embed_tokens, weights.config.vocab_size,
                                               weights.config.hidden_size);
  }
  visit_linears(weights, [&](const std::string& name, kernels::LinearWeight& w) {
    if (w.format != kernels::WeightFormat::f32) {
      throw std::invalid_argument("quantize_weights: " + name + " is already quantized");
    }
    if (spec.format == kernels::WeightFormat::fp8_e4m3) {
      w = kernels::quantize_fp8_e4m3(w.values.data(), w.rows, w.cols);
      return;
    }
    if (spec.format == kernels::WeightFormat::bf16 || spec.format == kernels::WeightFormat::fp16) {
      w = kernels::convert_to_half(w.values.data(), w.rows, w.cols, spec.format);
      return;
    }
    if (spec.group_size != 0 && w.cols % spec.group_size != 0) {
      throw InputError("quantization " + quant_spec_name(spec) + ": group size " +
                       std::to_string(spec.group_size) + " does not divide the input width " +
                       std::to_string(w.cols) + " of " + name);
    }
    w = kernels::quantize_int8(w.values.data(), w.rows, w.cols, spec.group_size);
  });
}

}  // namespace tidal::models
