// bf16, fp16 and fp8 e4m3 conversions: exact decode of every code, round trips, and
// round-to-nearest-even on ties.
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/cpu/vector_ops.h"
#include "kernels/numeric/bf16.h"
#include "kernels/numeric/fp16.h"
#include "kernels/numeric/fp8_e4m3.h"

namespace tidal::kernels {
namespace {

// The value of an e4m3 code from its definition.
double e4m3_value(int code) {
  const int sign = code >> 7;
  const int exponent = (code >> 3) & 0xF;
  const int mantissa = code & 7;
  const double magnitude = exponent == 0 ? mantissa / 8.0 * std::pow(2.0, -6)
                                         : (1.0 + mantissa / 8.0) * std::pow(2.0, exponent - 7);
  return sign ? -magnitude : magnitude;
}

TEST(Fp8E4m3, DecodesEveryCodeExactly) {
  for (int code = 0; code < 256; ++code) {
    const float value = fp8_e4m3_to_float(static_cast<uint8_t>(code));
    if ((code & 0x7F) == 0x7F) {
      EXPECT_TRUE(std::isnan(value)) << code;
      EXPECT_TRUE(std::isnan(fp8_e4m3_table()[code])) << code;
    } else {
      EXPECT_EQ(static_cast<double>(value), e4m3_value(code)) << code;
      EXPECT_EQ(fp8_e4m3_table()[code], value) << code;
    }
  }
  EXPECT_EQ(fp8_e4m3_to_float(0x7E), 448.0f);
  EXPECT_EQ(fp8_e4m3_to_float(0x01), std::ldexp(1.0f, -9));
}

TEST(Fp8E4m3, VectorDecodeEqualsTableForAll256) {
  std::vector<uint8_t> codes(256);
  for (int code = 0; code < 256; ++code) codes[code] = static_cast<uint8_t>(code);
  std::vector<float> decoded(256);
  cpu::decode_fp8_e4m3(codes.data(), 0.375f, 256, decoded.data());
  for (int code = 0; code < 256; ++code) {
    const float expected = fp8_e4m3_table()[code] * 0.375f;
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(decoded[code])) << code;
    } else {
      EXPECT_EQ(decoded[code], expected) << code;
    }
  }
}

TEST(Fp8E4m3, EncodeOfDecodeGivesTheCodeBackForAll256) {
  for (int code = 0; code < 256; ++code) {
    const uint8_t back = float_to_fp8_e4m3(fp8_e4m3_to_float(static_cast<uint8_t>(code)));
    EXPECT_EQ(back, code) << code;  // NaN codes 0x7F / 0xFF come back with their sign
  }
}

TEST(Fp8E4m3, RoundsToNearestEvenAndSaturates) {
  // Between 1.0 (0x38) and 1.125 (0x39): the midpoint goes to the even mantissa (1.0).
  EXPECT_EQ(float_to_fp8_e4m3(1.0625f), 0x38);
  EXPECT_EQ(float_to_fp8_e4m3(1.0626f), 0x39);
  // Between 1.125 (0x39) and 1.25 (0x3A): the midpoint goes to 1.25.
  EXPECT_EQ(float_to_fp8_e4m3(1.1875f), 0x3A);
  // Subnormal midpoint 0.5 * 2^-9 rounds to zero (even), 1.5 * 2^-9 to 2 * 2^-9.
  EXPECT_EQ(float_to_fp8_e4m3(std::ldexp(0.5f, -9)), 0x00);
  EXPECT_EQ(float_to_fp8_e4m3(std::ldexp(1.5f, -9)), 0x02);
  EXPECT_EQ(float_to_fp8_e4m3(-std::ldexp(1.5f, -9)), 0x82);
  // Rounding up across a binade: 15.5/8 * 2^0 midpoint between 1.875 and 2.0 -> 2.0 (even).
  EXPECT_EQ(fp8_e4m3_to_float(float_to_fp8_e4m3(1.9375f)), 2.0f);
  EXPECT_EQ(float_to_fp8_e4m3(1000.0f), 0x7E);
  EXPECT_EQ(float_to_fp8_e4m3(-1e30f), 0xFE);
  EXPECT_EQ(float_to_fp8_e4m3(INFINITY), 0x7E);
}

TEST(Fp8E4m3, EncodeIsTheNearestCode) {
  // For many values, no finite code is strictly nearer than the chosen one.
  for (int i = -4000; i <= 4000; ++i) {
    const float value = static_cast<float>(i) * 0.1173f;
    const double chosen = fp8_e4m3_to_float(float_to_fp8_e4m3(value));
    const double chosen_error = std::fabs(chosen - value);
    for (int code = 0; code < 256; ++code) {
      if ((code & 0x7F) == 0x7F) continue;
      EXPECT_LE(chosen_error, std::fabs(e4m3_value(code) - value)) << value << " code " << code;
    }
  }
}

TEST(Bf16, RoundsToNearestEven) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3F80);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1.0).
  EXPECT_EQ(float_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3F80);
  // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even).
  EXPECT_EQ(float_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);
  EXPECT_EQ(float_to_bf16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)), 0x3F81);
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(NAN))));
  EXPECT_EQ(float_to_bf16(-INFINITY), 0xFF80);
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const uint16_t code = static_cast<uint16_t>(bits);
    const float value = bf16_to_float(code);
    if (!std::isnan(value)) {
      EXPECT_EQ(float_to_bf16(value), code);
    }
  }
}

TEST(Fp16, DecodesAndRoundTripsEveryCode) {
  EXPECT_EQ(fp16_to_float(0x3C00), 1.0f);
  EXPECT_EQ(fp16_to_float(0x7BFF), 65504.0f);
  EXPECT_EQ(fp16_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(fp16_to_float(0xFC00), -INFINITY);
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const uint16_t code = static_cast<uint16_t>(bits);
    const float value = fp16_to_float(code);
    if (std::isnan(value)) {
      EXPECT_TRUE(std::isnan(fp16_to_float(float_to_fp16(value))));
    } else {
      EXPECT_EQ(float_to_fp16(value), code) << bits;
    }
  }
  // Ties to even: 1 + 2^-11 is halfway between 1 and 1 + 2^-10.
  EXPECT_EQ(float_to_fp16(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  EXPECT_EQ(float_to_fp16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  EXPECT_EQ(float_to_fp16(65520.0f), 0x7C00);  // rounds up past the largest finite value
}

}  // namespace
}  // namespace tidal::kernels
