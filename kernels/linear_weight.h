// Weights of a linear layer, row-major [out_features, in_features] (y = x W^T), in fp32 or
// weight-only quantized form:
//   int8:     code = round(w / scale) in [-127, 127], one scale per (row, group of group_size
//             input columns); per-channel is group_size == in_features.
//   fp8_e4m3: code = e4m3(w / scale), one scale per row (scale = max|row| / 448).
// Activations stay fp32; kernels dequantize on the fly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tidal::kernels {

enum class WeightFormat : uint8_t { f32, int8, fp8_e4m3 };

const char* weight_format_name(WeightFormat format);

// A non-owning view the backends read; data lives wherever the backend reads from.
struct LinearView {
  WeightFormat format = WeightFormat::f32;
  int64_t rows = 0;  // out_features
  int64_t cols = 0;  // in_features
  int64_t group_size =
      0;  // input columns per scale; == cols for per-channel and fp8; unused for f32
  const void* data = nullptr;     // [rows, cols] float, int8_t or uint8_t (e4m3 codes)
  const float* scales = nullptr;  // [rows, cols / group_size]; nullptr for f32

  int64_t num_groups() const { return format == WeightFormat::f32 ? 0 : cols / group_size; }
};

// Owning storage for one linear layer.
struct LinearWeight {
  WeightFormat format = WeightFormat::f32;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t group_size = 0;
  std::vector<float> values;       // [rows, cols] when f32
  std::vector<int8_t> int8_codes;  // [rows, cols] when int8
  std::vector<uint8_t> fp8_codes;  // [rows, cols] when fp8_e4m3
  std::vector<float> scales;       // [rows, cols / group_size] when quantized

  LinearView view() const;
  size_t bytes() const;  // codes or values plus scales
};

LinearWeight make_f32_linear(std::vector<float> values, int64_t rows, int64_t cols);

// group_size == 0 means per-channel; otherwise it must divide cols (std::invalid_argument if not).
LinearWeight quantize_int8(const float* weights, int64_t rows, int64_t cols, int64_t group_size);
LinearWeight quantize_fp8_e4m3(const float* weights, int64_t rows, int64_t cols);

// The fp32 matrix a view stands for: [rows, cols].
std::vector<float> dequantize(const LinearView& weight);

}  // namespace tidal::kernels
