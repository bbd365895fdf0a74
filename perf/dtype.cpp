#include "perf/dtype.h"

#include <array>

#include "base/input_error.h"

namespace tidal::perf {
namespace {

constexpr std::array<std::pair<std::string_view, DType>, 7> kDTypes{{
    {"fp32", DType::fp32},
    {"bf16", DType::bf16},
    {"fp16", DType::fp16},
    {"fp8", DType::fp8},
    {"int8", DType::int8},
    {"int4", DType::int4},
    {"fp4", DType::fp4},
}};

}  // namespace

DType parse_dtype(std::string_view text, const std::string& json_path) {
  for (const auto& [name, dtype] : kDTypes) {
    if (name == text) return dtype;
  }
  throw InputError(json_path + ": unknown dtype \"" + std::string(text) +
                   "\"; expected one of fp32, bf16, fp16, fp8, int8, int4, fp4");
}

std::string_view dtype_name(DType dtype) {
  for (const auto& [name, value] : kDTypes) {
    if (value == dtype) return name;
  }
  return "unknown";
}

double dtype_bytes(DType dtype) {
  switch (dtype) {
    case DType::fp32:
      return 4.0;
    case DType::bf16:
    case DType::fp16:
      return 2.0;
    case DType::fp8:
    case DType::int8:
      return 1.0;
    case DType::int4:
    case DType::fp4:
      return 0.5;
  }
  return 0.0;
}

}  // namespace tidal::perf
