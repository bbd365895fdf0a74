#include "kernels/numeric/fp16.h"

#include <bit>
#include <cmath>

#include "kernels/numeric/round_half_even.h"

namespace tidal::kernels {

float fp16_to_float(uint16_t value) {
  const bool negative = (value & 0x8000u) != 0;
  const int exponent = (value >> 10) & 0x1F;
  const int mantissa = value & 0x3FF;
  float magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  }
  return negative ? -magnitude : magnitude;
}

uint16_t float_to_fp16(float value) {
  const uint16_t sign = (std::bit_cast<uint32_t>(value) >> 16) & 0x8000u;
  if (std::isnan(value)) return sign | 0x7E00u;
  const double magnitude = std::fabs(static_cast<double>(value));
  if (std::isinf(value)) return sign | 0x7C00u;
  if (magnitude < 0x1p-14) {  // subnormal range: multiples of 2^-24 (1024 becomes 2^-14)
    return sign | static_cast<uint16_t>(round_half_even(magnitude * 0x1p24));
  }
  int binary_exponent = 0;
  const double fraction = std::frexp(magnitude, &binary_exponent);  // [0.5, 1)
  int exponent = binary_exponent - 1;
  int mantissa = static_cast<int>(round_half_even((fraction * 2.0 - 1.0) * 1024.0));
  if (mantissa == 1024) {
    mantissa = 0;
    ++exponent;
  }
  const int biased = exponent + 15;
  if (biased >= 31) return sign | 0x7C00u;
  return sign | static_cast<uint16_t>((biased << 10) | mantissa);
}

}  // namespace tidal::kernels
