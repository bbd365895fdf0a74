// Weight concatenation for the fused decode path: stacked q/k/v and interleaved gate/up hold every
// row (and its scales) where the fused kernels read it, so one linear over the concatenation
// gives bit for bit the separate linears' outputs, and SwiGLU of its pairs the unfused MLP input.
#include "kernels/fused_weights.h"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/fused_reference.h"
#include "kernels/cpu/gemm.h"
#include "tests/kernels/test_random.h"

namespace tidal::kernels {
namespace {

using testing::random_values;

LinearWeight make_weight(std::mt19937_64& rng, WeightFormat format, int64_t rows, int64_t cols) {
  const std::vector<float> values = random_values(rng, rows * cols);
  switch (format) {
    case WeightFormat::int8:
      return quantize_int8(values.data(), rows, cols, 8);
    case WeightFormat::fp8_e4m3:
      return quantize_fp8_e4m3(values.data(), rows, cols);
    case WeightFormat::bf16:
    case WeightFormat::fp16:
      return convert_to_half(values.data(), rows, cols, format);
    case WeightFormat::f32:
      break;
  }
  return make_f32_linear(values, rows, cols);
}

std::vector<float> run_linear(const std::vector<float>& x, int64_t tokens, const LinearWeight& w) {
  std::vector<float> y(tokens * w.rows);  // [tokens, rows]
  reference::linear(x.data(), tokens, w.view(), y.data());
  return y;
}

class FusedWeights : public ::testing::TestWithParam<WeightFormat> {
 protected:
  std::mt19937_64 rng_{8128};
};

TEST_P(FusedWeights, StackedQkvRowsAreQThenKThenV) {
  const int64_t cols = 32, tokens = 3;
  const QkvLayout layout{4, 2, 8};
  const LinearWeight q = make_weight(rng_, GetParam(), layout.num_heads * layout.head_dim, cols);
  const LinearWeight k = make_weight(rng_, GetParam(), layout.num_kv_heads * layout.head_dim, cols);
  const LinearWeight v = make_weight(rng_, GetParam(), layout.num_kv_heads * layout.head_dim, cols);
  const LinearWeight qkv = concatenate_qkv(q, k, v);
  ASSERT_EQ(qkv.rows, layout.row_stride());
  EXPECT_EQ(qkv.bytes(), q.bytes() + k.bytes() + v.bytes());
  const std::vector<float> x = random_values(rng_, tokens * cols);
  const std::vector<float> y = run_linear(x, tokens, qkv);
  const std::vector<float> yq = run_linear(x, tokens, q);
  const std::vector<float> yk = run_linear(x, tokens, k);
  const std::vector<float> yv = run_linear(x, tokens, v);
  for (int64_t t = 0; t < tokens; ++t) {
    const float* row = y.data() + t * layout.row_stride();
    for (int64_t i = 0; i < q.rows; ++i) EXPECT_EQ(row[layout.q_offset() + i], yq[t * q.rows + i]);
    for (int64_t i = 0; i < k.rows; ++i) EXPECT_EQ(row[layout.k_offset() + i], yk[t * k.rows + i]);
    for (int64_t i = 0; i < v.rows; ++i) EXPECT_EQ(row[layout.v_offset() + i], yv[t * v.rows + i]);
  }
}

TEST_P(FusedWeights, InterleavedGateUpPairsGiveTheUnfusedSwiglu) {
  const int64_t cols = 48, intermediate = 20, tokens = 5;
  const LinearWeight gate = make_weight(rng_, GetParam(), intermediate, cols);
  const LinearWeight up = make_weight(rng_, GetParam(), intermediate, cols);
  const LinearWeight gate_up = interleave_gate_up(gate, up);
  ASSERT_EQ(gate_up.rows, 2 * intermediate);
  const std::vector<float> x = random_values(rng_, tokens * cols);
  const std::vector<float> pairs = run_linear(x, tokens, gate_up);
  const std::vector<float> g = run_linear(x, tokens, gate);
  const std::vector<float> u = run_linear(x, tokens, up);
  for (int64_t i = 0; i < tokens * intermediate; ++i) {
    EXPECT_EQ(pairs[2 * i], g[i]);
    EXPECT_EQ(pairs[2 * i + 1], u[i]);
  }
  std::vector<float> fused(tokens * intermediate);
  std::vector<float> unfused(tokens * intermediate);
  reference::swiglu_pairs(pairs.data(), tokens, intermediate, fused.data());
  reference::swiglu(g.data(), u.data(), tokens * intermediate, unfused.data());
  EXPECT_EQ(fused, unfused);
}

INSTANTIATE_TEST_SUITE_P(Formats, FusedWeights,
                         ::testing::Values(WeightFormat::f32, WeightFormat::int8,
                                           WeightFormat::fp8_e4m3, WeightFormat::bf16,
                                           WeightFormat::fp16),
                         [](const auto& info) { return weight_format_name(info.param); });

TEST(FusedWeightsErrors, PartsMustShareFormatColsAndRows) {
  std::mt19937_64 rng(5);
  const LinearWeight a = make_weight(rng, WeightFormat::f32, 4, 16);
  const LinearWeight wider = make_weight(rng, WeightFormat::f32, 4, 32);
  const LinearWeight taller = make_weight(rng, WeightFormat::f32, 6, 16);
  const LinearWeight other = make_weight(rng, WeightFormat::bf16, 4, 16);
  EXPECT_THROW(concatenate_qkv(a, wider, a), std::invalid_argument);
  EXPECT_THROW(concatenate_qkv(a, a, other), std::invalid_argument);
  EXPECT_THROW(interleave_gate_up(a, taller), std::invalid_argument);
  EXPECT_THROW(concatenate_rows({}), std::invalid_argument);
  EXPECT_EQ(concatenate_qkv(a, taller, a).rows, 14);
}

TEST(FusedWeightsLayout, QkvOffsetsOfLlama3_8b) {
  const QkvLayout layout{32, 8, 128};
  EXPECT_EQ(layout.k_offset(), 4096);
  EXPECT_EQ(layout.v_offset(), 5120);
  EXPECT_EQ(layout.row_stride(), 6144);
}

}  // namespace
}  // namespace tidal::kernels
