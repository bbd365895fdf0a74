// Weight quantization: int8 per-channel and per-group, fp8 e4m3 per-channel; codes, scales,
// and dequantization error bounds.
#include <cmath>

#include <gtest/gtest.h>

#include "kernels/linear_weight.h"
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

}  // namespace
}  // namespace tidal::kernels
