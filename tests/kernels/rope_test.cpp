// RoPE: frequencies (plain and Llama-3 scaled) against the formulas, rotation against the
// reference, norm preservation and the relative-position property.
#include <cmath>
#include <numbers>

#include <gtest/gtest.h>

#include "kernels/cpu/rope.h"
#include "kernels/rope_frequencies.h"
#include "tests/kernels/test_random.h"

namespace tidal::kernels {
namespace {

TEST(RopeFrequencies, PlainMatchFormula) {
  const std::vector<float> inv_freq = rope_inv_freq(8, 10000.0, std::nullopt);
  ASSERT_EQ(inv_freq.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_FLOAT_EQ(inv_freq[i], static_cast<float>(std::pow(10000.0, -2.0 * i / 8)));
  }
}

TEST(RopeFrequencies, Llama3ScalingBands) {
  Llama3RopeScaling scaling;  // factor 8, low 1, high 4, original context 8192
  const int64_t head_dim = 128;
  const std::vector<float> plain = rope_inv_freq(head_dim, 500000.0, std::nullopt);
  const std::vector<float> scaled = rope_inv_freq(head_dim, 500000.0, scaling);
  int num_high = 0, num_low = 0, num_mid = 0;
  for (size_t i = 0; i < plain.size(); ++i) {
    const double wavelen = 2.0 * std::numbers::pi / plain[i];
    if (wavelen < 8192.0 / 4.0) {  // high frequencies: unchanged
      EXPECT_EQ(scaled[i], plain[i]);
      ++num_high;
    } else if (wavelen > 8192.0) {  // low frequencies: divided by factor
      EXPECT_FLOAT_EQ(scaled[i], plain[i] / 8.0f);
      ++num_low;
    } else {  // in between: interpolated, within the two
      EXPECT_LE(scaled[i], plain[i]);
      EXPECT_GE(scaled[i], plain[i] / 8.0f);
      const double smooth = (8192.0 / wavelen - 1.0) / 3.0;
      EXPECT_NEAR(scaled[i], (1 - smooth) * plain[i] / 8.0 + smooth * plain[i], 1e-6 * plain[i]);
      ++num_mid;
    }
  }
  EXPECT_GT(num_high, 0);
  EXPECT_GT(num_low, 0);
  EXPECT_GT(num_mid, 0);
}

TEST(Rope, OptimizedEqualsReference) {
  std::mt19937_64 rng(21);
  ThreadPool pool(3);
  for (int trial = 0; trial < 10; ++trial) {
    const int64_t num_tokens = testing::uniform_int(rng, 1, 30);
    const int64_t num_kv_heads = testing::uniform_int(rng, 1, 4);
    const int64_t num_heads = num_kv_heads * testing::uniform_int(rng, 1, 4);
    const int64_t head_dim = 2 * testing::uniform_int(rng, 1, 40);
    const std::vector<float> inv_freq = rope_inv_freq(head_dim, 10000.0, std::nullopt);
    std::vector<int32_t> positions(num_tokens);
    for (int32_t& p : positions) p = static_cast<int32_t>(testing::uniform_int(rng, 0, 5000));
    std::vector<float> q = testing::random_values(rng, num_tokens * num_heads * head_dim);
    std::vector<float> k = testing::random_values(rng, num_tokens * num_kv_heads * head_dim);
    std::vector<float> q_ref = q, k_ref = k;
    reference::rope(q_ref.data(), k_ref.data(), positions.data(), num_tokens, num_heads,
                    num_kv_heads, head_dim, inv_freq.data());
    cpu::rope(pool, q.data(), k.data(), positions.data(), num_tokens, num_heads, num_kv_heads,
              head_dim, inv_freq.data());
    EXPECT_EQ(q, q_ref);
    EXPECT_EQ(k, k_ref);
  }
}

TEST(Rope, PreservesNormAndDependsOnRelativePosition) {
  std::mt19937_64 rng(22);
  const int64_t head_dim = 64;
  const std::vector<float> inv_freq = rope_inv_freq(head_dim, 10000.0, std::nullopt);
  const std::vector<float> q0 = testing::random_values(rng, head_dim);
  const std::vector<float> k0 = testing::random_values(rng, head_dim);
  const auto rotated_dot = [&](int32_t q_pos, int32_t k_pos) {
    std::vector<float> q = q0, k = k0, scratch_k = k0, scratch_q = q0;
    reference::rope(q.data(), scratch_k.data(), &q_pos, 1, 1, 1, head_dim, inv_freq.data());
    reference::rope(scratch_q.data(), k.data(), &k_pos, 1, 1, 1, head_dim, inv_freq.data());
    double norm0 = 0, norm1 = 0, dot = 0;
    for (int64_t i = 0; i < head_dim; ++i) {
      norm0 += q0[i] * q0[i];
      norm1 += q[i] * q[i];
      dot += q[i] * k[i];
    }
    EXPECT_NEAR(norm0, norm1, 1e-4 * norm0);
    return dot;
  };
  EXPECT_NEAR(rotated_dot(7, 3), rotated_dot(107, 103), 1e-3);
  EXPECT_NEAR(rotated_dot(0, 0), rotated_dot(50, 50), 1e-3);
}

}  // namespace
}  // namespace tidal::kernels
