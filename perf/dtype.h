// Numeric formats of weights and KV cache, and their storage size.
#pragma once

#include <string>
#include <string_view>

namespace tidal::perf {

enum class DType { fp32, bf16, fp16, fp8, int8, int4, fp4 };

// Parses "fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"; anything else is an InputError
// "<json_path>: unknown dtype "x"; expected one of fp32, bf16, fp16, fp8, int8, int4, fp4".
DType parse_dtype(std::string_view text, const std::string& json_path);

std::string_view dtype_name(DType dtype);

// Bytes per element: fp32 4, bf16/fp16 2, fp8/int8 1, int4/fp4 0.5 (quantization scales ignored).
double dtype_bytes(DType dtype);

}  // namespace tidal::perf
