// Weight quantization: int8 per-channel and per-group, fp8 e4m3 per-channel, bf16 / fp16; codes,
// scales, and dequantization error bounds.
#include <cmath>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/linear_weight.h"
#include "kernels/numeric/bf16.h"
#include "kernels/numeric/fp8_e4m3.h"
#include "tests/kernels/test_random.h"

namespace tidal::kernels {
namespace {

TEST(QuantizeInt8, PerChannelCodesAndScales) {
  const std::vector<float> w = {1.0f,  -0.5f, 0.25f, 2.0f,   // row 0: absmax 2
                                -4.0f, 1.0f,  3.0f,  0.0f};  // row 1: absmax 4
  const LinearWeight q = quantize_int8(w.data(), 2, 4, 0);
  EXPECT_EQ(q.group_size, 4);
  EXPECT_FLOAT_EQ(q.scales[0], 2.0f / 127);
  EXPECT_FLOAT_EQ(q.scales[1], 4.0f / 127);
  EXPECT_EQ(q.int8_codes[3], 127);
  EXPECT_EQ(q.int8_codes[4], -127);
  EXPECT_EQ(q.int8_codes[0], std::lround(1.0f / q.scales[0]));
  EXPECT_EQ(q.bytes(), 8u + 2 * sizeof(float));
}

TEST(QuantizeInt8, GroupwiseErrorWithinHalfAStep) {
  std::mt19937_64 rng(61);
  for (int64_t group : {0, 32, 64, 128}) {
    const int64_t rows = 7, cols = 256;
    const std::vector<float> w = testing::random_values(rng, rows * cols);
    const LinearWeight q = quantize_int8(w.data(), rows, cols, group);
    const std::vector<float> back = dequantize(q.view());
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        const float scale = q.scales[r * q.view().num_groups() + c / q.group_size];
        EXPECT_LE(std::fabs(back[r * cols + c] - w[r * cols + c]), 0.5f * scale * 1.0001f);
      }
    }
  }
  EXPECT_THROW(quantize_int8(std::vector<float>(96).data(), 1, 96, 64), std::invalid_argument);
}

TEST(QuantizeFp8, RelativeErrorWithinE4m3Precision) {
  std::mt19937_64 rng(62);
  const int64_t rows = 5, cols = 300;
  const std::vector<float> w = testing::random_values(rng, rows * cols);
  const LinearWeight q = quantize_fp8_e4m3(w.data(), rows, cols);
  const std::vector<float> back = dequantize(q.view());
  for (int64_t r = 0; r < rows; ++r) {
    // The largest magnitude of each row maps to the largest code.
    float absmax = 0.0f;
    for (int64_t c = 0; c < cols; ++c) absmax = std::max(absmax, std::fabs(w[r * cols + c]));
    EXPECT_FLOAT_EQ(q.scales[r], absmax / 448.0f);
    for (int64_t c = 0; c < cols; ++c) {
      const float value = w[r * cols + c];
      // 3 mantissa bits: half a step is 1/16 relative in the normal range; values below the
      // normal range of the scaled row have an absolute error of half a subnormal step.
      const float tolerance =
          std::max(std::fabs(value) / 16.0f, 0.5f * std::ldexp(1.0f, -9) * q.scales[r]);
      EXPECT_LE(std::fabs(back[r * cols + c] - value), tolerance * 1.0001f);
    }
  }
}

// bf16 / fp16 storage: round to nearest, ties to even, 2 bytes per weight, no scales.
TEST(ConvertToHalf, RoundsToNearestEvenAndStoresTwoBytes) {
  // 1 + 2^-8 is a bf16 tie (even: 1), 1 + 3 * 2^-8 rounds up to 1 + 2^-6; fp16 holds both.
  const std::vector<float> values{1.0f + 0x1p-8f, 1.0f + 0x3p-8f, -2.5f, 70000.0f};
  const LinearWeight bf16 = convert_to_half(values.data(), 2, 2, WeightFormat::bf16);
  EXPECT_EQ(dequantize(bf16.view()),
            (std::vector<float>{1.0f, 1.0f + 0x1p-6f, -2.5f, round_to_bf16(70000.0f)}));
  EXPECT_EQ(bf16.bytes(), 4 * sizeof(uint16_t));
  EXPECT_EQ(bf16.view().scales, nullptr);
  EXPECT_EQ(bf16.view().num_groups(), 0);
  const LinearWeight fp16 = convert_to_half(values.data(), 2, 2, WeightFormat::fp16);
  const std::vector<float> widened = dequantize(fp16.view());
  EXPECT_EQ(widened[0], values[0]);
  EXPECT_EQ(widened[1], values[1]);
  EXPECT_EQ(widened[2], -2.5f);
  EXPECT_TRUE(std::isinf(widened[3]));  // beyond 65504
  EXPECT_EQ(weight_element_bytes(WeightFormat::fp16), 2u);
  EXPECT_STREQ(weight_format_name(WeightFormat::bf16), "bf16");
  EXPECT_THROW(convert_to_half(values.data(), 2, 2, WeightFormat::int8), std::invalid_argument);
}

}  // namespace
}  // namespace tidal::kernels
