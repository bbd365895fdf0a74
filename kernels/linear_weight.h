// Weights of a linear layer, row-major [out_features, in_features] (y = x W^T), in fp32 or
// weight-only quantized form:
//   int8:     code = round(w / scale) in [-127, 127], one scale per (row, group of group_size
//             input columns); per-channel is group_size == in_features.
//   fp8_e4m3: code = e4m3(w / scale), one scale per row (scale = max|row| / 448).
//   bf16, fp16: w rounded to the 16-bit type (nearest, ties to even), no scales.
// Activations stay fp32; kernels dequantize (widen) on the fly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tidal::kernels {

enum class WeightFormat : uint8_t { f32, int8, fp8_e4m3, bf16, fp16 };

const char* weight_format_name(WeightFormat format);

// A non-owning view the backends read; data lives wherever the backend reads from.
struct LinearView {
  WeightFormat format = WeightFormat::f32;
  int64_t rows = 0;  // out_features
  int64_t cols = 0;  // in_features
  int64_t group_size =
      0;  // input columns per scale; == cols for per-channel and fp8; unused for f32 and halves
  // [rows, cols] float, int8_t, uint8_t (e4m3 codes) or uint16_t (bf16 / fp16 bits)
  const void* data = nullptr;
  const float* scales = nullptr;  // [rows, cols / group_size]; nullptr for f32, bf16, fp16

  int64_t num_groups() const { return has_scales(format) ? cols / group_size : 0; }
  static bool has_scales(WeightFormat f) {
    return f == WeightFormat::int8 || f == WeightFormat::fp8_e4m3;
  }
};

// Owning storage for one linear layer.
struct LinearWeight {
  WeightFormat format = WeightFormat::f32;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t group_size = 0;
  std::vector<float> values;        // [rows, cols] when f32
  std::vector<int8_t> int8_codes;   // [rows, cols] when int8
  std::vector<uint8_t> fp8_codes;   // [rows, cols] when fp8_e4m3
  std::vector<uint16_t> half_bits;  // [rows, cols] when bf16 or fp16
  std::vector<float> scales;        // [rows, cols / group_size] when quantized

  LinearView view() const;
  size_t bytes() const;  // codes or values plus scales
};

LinearWeight make_f32_linear(std::vector<float> values, int64_t rows, int64_t cols);

// group_size == 0 means per-channel; otherwise it must divide cols (std::invalid_argument if not).
LinearWeight quantize_int8(const float* weights, int64_t rows, int64_t cols, int64_t group_size);
LinearWeight quantize_fp8_e4m3(const float* weights, int64_t rows, int64_t cols);
// format bf16 or fp16 (std::invalid_argument otherwise): each weight rounded to nearest, ties to
// even (fp16: beyond 65504 becomes infinity, subnormals kept).
LinearWeight convert_to_half(const float* weights, int64_t rows, int64_t cols, WeightFormat format);
// Bytes of one stored weight element (codes or values, scales apart): 4, 1 or 2.
size_t weight_element_bytes(WeightFormat format);
// The float a bf16 or fp16 weight stands for (exact).
float half_weight_value(WeightFormat format, uint16_t bits);

// The fp32 matrix a view stands for: [rows, cols].
std::vector<float> dequantize(const LinearView& weight);

}  // namespace tidal::kernels
