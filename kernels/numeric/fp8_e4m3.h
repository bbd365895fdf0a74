// FP8 E4M3 (the "FN" variant: 1 sign, 4 exponent bits with bias 7, 3 mantissa bits, no
// infinities, NaN = S.1111.111, largest finite 448, smallest subnormal 2^-9).
// Encoding rounds to nearest, ties to even, and saturates finite values beyond 448 to +-448.
#pragma once

#include <cstdint>

namespace tidal::kernels {

inline constexpr float kFp8E4m3Max = 448.0f;

float fp8_e4m3_to_float(uint8_t code);
uint8_t float_to_fp8_e4m3(float value);

// decode table: fp8_e4m3_table()[code] == fp8_e4m3_to_float(code) for all 256 codes.
const float* fp8_e4m3_table();

}  // namespace tidal::kernels
