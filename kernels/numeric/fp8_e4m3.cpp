#include "kernels/numeric/fp8_e4m3.h"

#include <array>
#include <bit>
#include <cmath>

#include "kernels/numeric/round_half_even.h"

namespace tidal::kernels {

float fp8_e4m3_to_float(uint8_t code) {
  const bool negative = (code & 0x80u) != 0;
  const int exponent = (code >> 3) & 0xF;
  const int mantissa = code & 0x7;
  float magnitude;
  if (exponent == 15 && mantissa == 7) {
    magnitude = NAN;
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -9);
  } else {
    magnitude = std::ldexp(static_cast<float>(8 + mantissa), exponent - 10);
  }
  return negative ? -magnitude : magnitude;
}

uint8_t float_to_fp8_e4m3(float value) {
  const uint8_t sign = (std::bit_cast<uint32_t>(value) >> 24) & 0x80u;
  if (std::isnan(value)) return sign | 0x7Fu;
  const double magnitude = std::fabs(static_cast<double>(value));
  if (magnitude >= kFp8E4m3Max) return sign | 0x7Eu;  // saturate (no infinities in e4m3fn)
  if (magnitude < 0x1p-6) {  // subnormal range: multiples of 2^-9 (8 becomes 2^-6)
    return sign | static_cast<uint8_t>(round_half_even(magnitude * 0x1p9));
  }
  int binary_exponent = 0;
  const double fraction = std::frexp(magnitude, &binary_exponent);  // [0.5, 1)
  int exponent = binary_exponent - 1;
  int mantissa = static_cast<int>(round_half_even((fraction * 2.0 - 1.0) * 8.0));
  if (mantissa == 8) {
    mantissa = 0;
    ++exponent;
  }
  const int biased = exponent + 7;
  if (biased > 15 || (biased == 15 && mantissa == 7)) return sign | 0x7Eu;
  return sign | static_cast<uint8_t>((biased << 3) | mantissa);
}

const float* fp8_e4m3_table() {
  static const std::array<float, 256> table = [] {
    std::array<float, 256> values{};
    for (int code = 0; code < 256; ++code) {
      values[code] = fp8_e4m3_to_float(static_cast<uint8_t>(code));
    }
    return values;
  }();
  return table.data();
}

}  // namespace tidal::kernels
