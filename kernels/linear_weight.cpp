#include "kernels/linear_weight.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/numeric/bf16.h"
#include "kernels/numeric/fp16.h"
#include "kernels/numeric/fp8_e4m3.h"
#include "kernels/numeric/round_half_even.h"

namespace tidal::kernels {

const char* weight_format_name(WeightFormat format) {
  switch (format) {
    case WeightFormat::f32:
      return "f32";
    case WeightFormat::int8:
      return "int8";
    case WeightFormat::fp8_e4m3:
      return "fp8_e4m3";
    case WeightFormat::bf16:
      return "bf16";
    case WeightFormat::fp16:
      return "fp16";
  }
  return "unknown";
}

LinearView LinearWeight::view() const {
  LinearView view;
  view.format = format;
  view.rows = rows;
  view.cols = cols;
  view.group_size = group_size;
  switch (format) {
    case WeightFormat::f32:
      view.data = values.data();
      break;
    case WeightFormat::int8:
      view.data = int8_codes.data();
      view.scales = scales.data();
      break;
    case WeightFormat::fp8_e4m3:
      view.data = fp8_codes.data();
      view.scales = scales.data();
      break;
    case WeightFormat::bf16:
    case WeightFormat::fp16:
      view.data = half_bits.data();
      break;
  }
  return view;
}

size_t weight_element_bytes(WeightFormat format) {
  switch (format) {
    case WeightFormat::f32:
      return sizeof(float);
    case WeightFormat::int8:
    case WeightFormat::fp8_e4m3:
      return 1;
    case WeightFormat::bf16:
    case WeightFormat::fp16:
      return sizeof(uint16_t);
  }
  return sizeof(float);
}

size_t LinearWeight::bytes() const {
  return values.size() * sizeof(float) + int8_codes.size() + fp8_codes.size() +
         half_bits.size() * sizeof(uint16_t) + scales.size() * sizeof(float);
}

LinearWeight make_f32_linear(std::vector<float> values, int64_t rows, int64_t cols) {
  if (static_cast<int64_t>(values.size()) != rows * cols) {
    throw std::invalid_argument("make_f32_linear: values size " + std::to_string(values.size()) +
                                " != rows * cols " + std::to_string(rows * cols));
  }
  LinearWeight weight;
  weight.format = WeightFormat::f32;
  weight.rows = rows;
  weight.cols = cols;
  weight.group_size = cols;
  weight.values = std::move(values);
  return weight;
}

namespace {

// The scale that maps the largest magnitude of values[0, count) to `max_code`; 0 for all zeros.
float absmax_scale(const float* values, int64_t count, float max_code) {
  float absmax = 0.0f;
  for (int64_t i = 0; i < count; ++i) absmax = std::max(absmax, std::fabs(values[i]));
  return absmax / max_code;
}

}  // namespace

LinearWeight quantize_int8(const float* weights, int64_t rows, int64_t cols, int64_t group_size) {
  if (group_size == 0) group_size = cols;
  if (group_size <= 0 || cols % group_size != 0) {
    throw std::invalid_argument("quantize_int8: group size " + std::to_string(group_size) +
                                " does not divide " + std::to_string(cols) + " columns");
  }
  LinearWeight weight;
  weight.format = WeightFormat::int8;
  weight.rows = rows;
  weight.cols = cols;
  weight.group_size = group_size;
  const int64_t num_groups = cols / group_size;
  weight.int8_codes.resize(rows * cols);    // [rows, cols]
  weight.scales.resize(rows * num_groups);  // [rows, num_groups]
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t g = 0; g < num_groups; ++g) {
      const float* group = weights + r * cols + g * group_size;
      const float scale = absmax_scale(group, group_size, 127.0f);
      weight.scales[r * num_groups + g] = scale;
      for (int64_t i = 0; i < group_size; ++i) {
        const double code = scale == 0.0f ? 0.0 : round_half_even(group[i] / scale);
        weight.int8_codes[r * cols + g * group_size + i] =
            static_cast<int8_t>(std::clamp(code, -127.0, 127.0));
      }
    }
  }
  return weight;
}

LinearWeight quantize_fp8_e4m3(const float* weights, int64_t rows, int64_t cols) {
  LinearWeight weight;
  weight.format = WeightFormat::fp8_e4m3;
  weight.rows = rows;
  weight.cols = cols;
  weight.group_size = cols;
  weight.fp8_codes.resize(rows * cols);  // [rows, cols]
  weight.scales.resize(rows);            // [rows]
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = weights + r * cols;
    const float scale = absmax_scale(row, cols, kFp8E4m3Max);
    weight.scales[r] = scale;
    for (int64_t c = 0; c < cols; ++c) {
      weight.fp8_codes[r * cols + c] = scale == 0.0f ? 0 : float_to_fp8_e4m3(row[c] / scale);
    }
  }
  return weight;
}

LinearWeight convert_to_half(const float* weights, int64_t rows, int64_t cols,
                             WeightFormat format) {
  if (format != WeightFormat::bf16 && format != WeightFormat::fp16) {
    throw std::invalid_argument(std::string("convert_to_half: ") + weight_format_name(format) +
                                " is not a 16-bit float format");
  }
  LinearWeight weight;
  weight.format = format;
  weight.rows = rows;
  weight.cols = cols;
  weight.group_size = cols;
  weight.half_bits.resize(rows * cols);  // [rows, cols]
  for (int64_t i = 0; i < rows * cols; ++i) {
    weight.half_bits[i] =
        format == WeightFormat::bf16 ? float_to_bf16(weights[i]) : float_to_fp16(weights[i]);
  }
  return weight;
}

float half_weight_value(WeightFormat format, uint16_t bits) {
  return format == WeightFormat::bf16 ? bf16_to_float(bits) : fp16_to_float(bits);
}

std::vector<float> dequantize(const LinearView& weight) {
  std::vector<float> values(weight.rows * weight.cols);  // [rows, cols]
  const int64_t num_groups = weight.num_groups();
  for (int64_t r = 0; r < weight.rows; ++r) {
    for (int64_t c = 0; c < weight.cols; ++c) {
      const int64_t i = r * weight.cols + c;
      switch (weight.format) {
        case WeightFormat::f32:
          values[i] = static_cast<const float*>(weight.data)[i];
          break;
        case WeightFormat::int8:
          values[i] = static_cast<float>(static_cast<const int8_t*>(weight.data)[i]) *
                      weight.scales[r * num_groups + c / weight.group_size];
          break;
        case WeightFormat::fp8_e4m3:
          values[i] = fp8_e4m3_table()[static_cast<const uint8_t*>(weight.data)[i]] *
                      weight.scales[r * num_groups + c / weight.group_size];
          break;
        case WeightFormat::bf16:
        case WeightFormat::fp16:
          values[i] =
              half_weight_value(weight.format, static_cast<const uint16_t*>(weight.data)[i]);
          break;
      }
    }
  }
  return values;
}

}  // namespace tidal::kernels
