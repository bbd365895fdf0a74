// bfloat16 storage helpers: float -> bf16 rounds to nearest, ties to even; NaN stays a quiet NaN.
#pragma once

#include <bit>
#include <cstdint>

namespace tidal::kernels {

inline uint16_t float_to_bf16(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7F800000u) == 0x7F800000u && (bits & 0x007FFFFFu) != 0) {
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);  // quiet NaN, sign kept
  }
  const uint32_t rounding_bias = 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding_bias) >> 16);
}

inline float bf16_to_float(uint16_t value) {
  return std::bit_cast<float>(static_cast<uint32_t>(value) << 16);
}

// The float nearest to `value` that bf16 can hold (what a bf16 round trip gives).
inline float round_to_bf16(float value) {
  return bf16_to_float(float_to_bf16(value));
}

}  // namespace tidal::kernels
