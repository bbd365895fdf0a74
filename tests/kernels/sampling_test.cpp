// Sampling: argmax ties, top-k / top-p never leave the allowed set, seeded determinism,
// the distribution's shape, and draws that follow it.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include <gtest/gtest.h>

#include "kernels/sampling.h"
#include "tests/kernels/test_random.h"

namespace tidal::kernels {
namespace {

TEST(Sampling, ArgmaxTiesGoToTheLowestIndex) {
  const std::vector<float> logits = {0.1f, 3.0f, -2.0f, 3.0f, 3.0f};
  EXPECT_EQ(argmax(logits.data(), 5), 1);
  EXPECT_EQ(argmax(logits.data(), 1), 0);
  SamplingRng rng(1);
  EXPECT_EQ(sample(logits.data(), 5, {0.0f, 0, 1.0f}, rng), 1);
}

TEST(Sampling, UniformIsSpecifiedBits) {
  SamplingRng rng(42);
  std::mt19937_64 engine(42);
  for (int i = 0; i < 100; ++i) {
    const double u = rng.uniform();
    EXPECT_EQ(u, static_cast<double>(engine() >> 11) * 0x1.0p-53);
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
  }
}

TEST(Sampling, TopKNeverPicksOutsideTheKLargest) {
  std::mt19937_64 gen(101);
  for (int trial = 0; trial < 20; ++trial) {
    const int64_t vocab = testing::uniform_int(gen, 2, 200);
    const std::vector<float> logits = testing::random_values(gen, vocab, 3.0f);
    const int64_t k = testing::uniform_int(gen, 1, vocab);
    std::vector<int32_t> order(vocab);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int32_t a, int32_t b) { return logits[a] > logits[b]; });
    const std::set<int32_t> allowed(order.begin(), order.begin() + k);
    SamplingRng rng(trial);
    std::set<int32_t> seen;
    for (int draw = 0; draw < 300; ++draw) {
      const int32_t token = sample(logits.data(), vocab, {1.5f, k, 1.0f}, rng);
      EXPECT_TRUE(allowed.count(token)) << token;
      seen.insert(token);
    }
    if (k >= 2) {
      EXPECT_GE(seen.size(), 2u);
    }
  }
}

TEST(Sampling, TopPKeepsTheSmallestPrefixReachingP) {
  // probabilities 0.5, 0.25, 0.125, 0.125 (logits are log of them)
  const std::vector<float> logits = {std::log(0.125f), std::log(0.5f), std::log(0.125f),
                                     std::log(0.25f)};
  std::vector<float> probs(4);
  sampling_distribution(logits.data(), 4, {1.0f, 0, 0.7f}, probs.data());
  EXPECT_NEAR(probs[1], 2.0 / 3.0, 1e-6);
  EXPECT_NEAR(probs[3], 1.0 / 3.0, 1e-6);
  EXPECT_EQ(probs[0], 0.0f);
  EXPECT_EQ(probs[2], 0.0f);
  sampling_distribution(logits.data(), 4, {1.0f, 0, 0.5f}, probs.data());
  EXPECT_EQ(probs[1], 1.0f);  // the first token alone reaches 0.5
  SamplingRng rng(3);
  for (int draw = 0; draw < 500; ++draw) {
    const int32_t token = sample(logits.data(), 4, {1.0f, 0, 0.7f}, rng);
    EXPECT_TRUE(token == 1 || token == 3);
  }
}

TEST(Sampling, TemperatureSharpensAndDistributionSumsToOne) {
  const std::vector<float> logits = {1.0f, 2.0f, 0.5f};
  std::vector<float> hot(3), cold(3);
  sampling_distribution(logits.data(), 3, {2.0f, 0, 1.0f}, hot.data());
  sampling_distribution(logits.data(), 3, {0.25f, 0, 1.0f}, cold.data());
  EXPECT_NEAR(hot[0] + hot[1] + hot[2], 1.0, 1e-6);
  EXPECT_NEAR(hot[1], std::exp(1.0) / (std::exp(0.5) + std::exp(1.0) + std::exp(0.25)), 1e-6);
  EXPECT_GT(cold[1], hot[1]);
  EXPECT_THROW(sampling_distribution(logits.data(), 3, {-1.0f, 0, 1.0f}, hot.data()),
               std::invalid_argument);
  EXPECT_THROW(sampling_distribution(logits.data(), 3, {1.0f, 0, 0.0f}, hot.data()),
               std::invalid_argument);
}

TEST(Sampling, SeededDrawsAreDeterministicAndFollowTheDistribution) {
  std::mt19937_64 gen(102);
  const std::vector<float> logits = testing::random_values(gen, 6, 2.0f);
  const SamplingParams params{0.8f, 0, 1.0f};
  std::vector<float> probs(6);
  sampling_distribution(logits.data(), 6, params, probs.data());
  SamplingRng a(77), b(77);
  std::vector<int64_t> counts(6);
  const int num_draws = 60000;
  for (int i = 0; i < num_draws; ++i) {
    const int32_t token = sample(logits.data(), 6, params, a);
    EXPECT_EQ(token, sample(logits.data(), 6, params, b));
    ++counts[token];
  }
  for (int i = 0; i < 6; ++i) {
    // 5 standard deviations of a binomial count
    const double expected = probs[i] * num_draws;
    EXPECT_NEAR(counts[i], expected, 5 * std::sqrt(expected * (1 - probs[i])) + 1) << i;
  }
}

TEST(Sampling, FromDistributionNeverPicksZeroProbability) {
  const std::vector<float> probs = {0.0f, 0.3f, 0.0f, 0.7f, 0.0f};
  for (double u : {0.0, 0.2999, 0.3, 0.5, 0.999999999}) {
    const int32_t token = sample_from_distribution(probs.data(), 5, u);
    EXPECT_TRUE(token == 1 || token == 3) << u;
  }
  EXPECT_EQ(sample_from_distribution(probs.data(), 5, 0.0), 1);
  EXPECT_EQ(sample_from_distribution(probs.data(), 5, 0.31), 3);
}

}  // namespace
}  // namespace tidal::kernels
