// The references of the fused decode operators against the unfused references they compose:
// RoPE + KV write from a stacked q/k/v row, norms and SwiGLU rounded to half, and a linear from
// half activations. These are the specs the CUDA fused kernels are tested against.
#include "kernels/cpu/fused_reference.h"

#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <random>
#include <vector>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/kv_write.h"
#include "kernels/cpu/rms_norm.h"
#include "kernels/cpu/rope.h"
#include "kernels/numeric/bf16.h"
#include "kernels/numeric/fp16.h"
#include "kernels/rope_frequencies.h"
#include "tests/kernels/test_random.h"

namespace tidal::kernels {
namespace {

using testing::random_values;

std::vector<uint8_t> arena_bytes(const KvArena& arena) {
  std::vector<uint8_t> bytes(arena.bytes());
  std::memcpy(bytes.data(), arena.view().data, bytes.size());
  return bytes;
}

class FusedReference : public ::testing::TestWithParam<KvDType> {
 protected:
  std::mt19937_64 rng_{4242};
};

TEST_P(FusedReference, RopeWriteKvEqualsRopeThenWriteKvOnTheSplitRows) {
  const QkvLayout layout{4, 2, 16};
  const int64_t tokens = 6;
  const KvCacheSpec spec{2, 4, 4, layout.num_kv_heads, layout.head_dim, GetParam()};
  const std::vector<float> qkv = random_values(rng_, tokens * layout.row_stride());
  const std::vector<int32_t> positions = {0, 5, 17, 300, 4095, 9};
  const std::vector<int64_t> slots = {0, 3, -1, 7, 12, 15};
  const std::vector<float> inv_freq = rope_inv_freq(layout.head_dim, 10000.0, std::nullopt);

  KvArena fused_arena(spec);
  std::vector<float> fused_q(tokens * layout.num_heads * layout.head_dim);
  reference::rope_write_kv(qkv.data(), layout, positions.data(), tokens, inv_freq.data(),
                           fused_arena.view(), 1, slots.data(), fused_q.data());

  const int64_t q_width = layout.num_heads * layout.head_dim;
  const int64_t kv_width = layout.num_kv_heads * layout.head_dim;
  std::vector<float> q, k, v;
  for (int64_t t = 0; t < tokens; ++t) {
    const float* row = qkv.data() + t * layout.row_stride();
    q.insert(q.end(), row, row + q_width);
    k.insert(k.end(), row + q_width, row + q_width + kv_width);
    v.insert(v.end(), row + q_width + kv_width, row + q_width + 2 * kv_width);
  }
  KvArena arena(spec);
  reference::rope(q.data(), k.data(), positions.data(), tokens, layout.num_heads,
                  layout.num_kv_heads, layout.head_dim, inv_freq.data());
  reference::write_kv(arena.view(), 1, k.data(), v.data(), slots.data(), tokens);
  EXPECT_EQ(fused_q, q);
  EXPECT_EQ(arena_bytes(fused_arena), arena_bytes(arena));
}

INSTANTIATE_TEST_SUITE_P(KvDTypes, FusedReference,
                         ::testing::Values(KvDType::f32, KvDType::bf16, KvDType::int8),
                         [](const auto& info) { return kv_dtype_name(info.param); });

TEST(FusedReferenceHalf, NormsRoundTheUnfusedOutput) {
  std::mt19937_64 rng(77);
  const int64_t rows = 3, dim = 40;
  const std::vector<float> x = random_values(rng, rows * dim);
  const std::vector<float> weight = random_values(rng, dim);
  std::vector<float> expected(rows * dim);
  reference::rms_norm(x.data(), weight.data(), rows, dim, 1e-5f, expected.data());
  std::vector<uint16_t> bf16(rows * dim), fp16(rows * dim);
  reference::rms_norm_to_half(x.data(), weight.data(), rows, dim, 1e-5f, WeightFormat::bf16,
                              bf16.data());
  reference::rms_norm_to_half(x.data(), weight.data(), rows, dim, 1e-5f, WeightFormat::fp16,
                              fp16.data());
  for (int64_t i = 0; i < rows * dim; ++i) {
    EXPECT_EQ(bf16[i], float_to_bf16(expected[i]));
    EXPECT_EQ(fp16[i], float_to_fp16(expected[i]));
  }
  std::vector<float> residual = random_values(rng, rows * dim);
  std::vector<float> fused_residual = residual;
  reference::add_rms_norm(residual.data(), x.data(), weight.data(), rows, dim, 1e-5f,
                          expected.data());
  reference::add_rms_norm_to_half(fused_residual.data(), x.data(), weight.data(), rows, dim, 1e-5f,
                                  WeightFormat::bf16, bf16.data());
  EXPECT_EQ(fused_residual, residual);
  for (int64_t i = 0; i < rows * dim; ++i) EXPECT_EQ(bf16[i], float_to_bf16(expected[i]));
  EXPECT_THROW(reference::rms_norm_to_half(x.data(), weight.data(), rows, dim, 1e-5f,
                                           WeightFormat::int8, bf16.data()),
               std::invalid_argument);
}

TEST(FusedReferenceHalf, SwigluPairsToHalfRoundsTheFp32Pairs) {
  std::mt19937_64 rng(78);
  const int64_t tokens = 2, intermediate = 24;
  const std::vector<float> pairs = random_values(rng, tokens * 2 * intermediate, 4.0f);
  std::vector<float> values(tokens * intermediate);
  reference::swiglu_pairs(pairs.data(), tokens, intermediate, values.data());
  std::vector<uint16_t> half(tokens * intermediate);
  reference::swiglu_pairs_to_half(pairs.data(), tokens, intermediate, WeightFormat::bf16,
                                  half.data());
  for (int64_t i = 0; i < tokens * intermediate; ++i) {
    EXPECT_EQ(half[i], float_to_bf16(values[i]));
  }
}

TEST(FusedReferenceHalf, LinearFromHalfIsTheLinearOfTheWidenedActivations) {
  std::mt19937_64 rng(79);
  const int64_t tokens = 3, rows = 8, cols = 16;
  const std::vector<float> w = random_values(rng, rows * cols);
  const LinearWeight weight = convert_to_half(w.data(), rows, cols, WeightFormat::bf16);
  std::vector<float> x = random_values(rng, tokens * cols);
  std::vector<uint16_t> x_half(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    x_half[i] = float_to_bf16(x[i]);
    x[i] = bf16_to_float(x_half[i]);
  }
  std::vector<float> expected(tokens * rows), actual(tokens * rows);
  reference::linear(x.data(), tokens, weight.view(), expected.data());
  reference::linear_from_half(x_half.data(), WeightFormat::bf16, tokens, weight.view(),
                              actual.data());
  EXPECT_EQ(actual, expected);
}

}  // namespace
}  // namespace tidal::kernels
