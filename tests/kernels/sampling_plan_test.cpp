// The device sampler's plan, on the CPU: which cuts run, the passes over a row of logits each
// costs, and a fixed-point resolution whose sums cannot overflow.
#include "kernels/cuda/sampling_plan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace tidal::kernels::cuda {
namespace {

constexpr int64_t kLlama3Vocab = 128256;

TEST(SamplingPlan, GreedyIsOnePass) {
  const SamplingPlan plan = plan_sampling(kLlama3Vocab, {0.0f, 50, 0.9f});
  EXPECT_TRUE(plan.greedy);
  EXPECT_FALSE(plan.top_k_cut);
  EXPECT_FALSE(plan.top_p_cut);
  EXPECT_EQ(plan.passes_over_row, 1);
  EXPECT_EQ(plan.weight_passes, 0);
}

TEST(SamplingPlan, PassesPerCut) {
  // max, total mass, the draw's two.
  EXPECT_EQ(plan_sampling(kLlama3Vocab, {1.0f, 0, 1.0f}).passes_over_row, 4);
  EXPECT_EQ(plan_sampling(kLlama3Vocab, {1.0f, 0, 1.0f}).weight_passes, 3);
  // + top-k: 4 digits and the tie cut.
  EXPECT_EQ(plan_sampling(kLlama3Vocab, {0.7f, 50, 1.0f}).passes_over_row, 9);
  // + top-p: 3 more digits (the first rides on the total), the check, the tie cut.
  const SamplingPlan top_p = plan_sampling(kLlama3Vocab, {1.0f, 0, 0.9f});
  EXPECT_EQ(top_p.passes_over_row, 9);
  EXPECT_EQ(top_p.weight_passes, 1);
  EXPECT_EQ(plan_sampling(kLlama3Vocab, {0.8f, 40, 0.5f}).passes_over_row, 14);
}

TEST(SamplingPlan, TopKAtOrAboveTheVocabularyIsNoCut) {
  EXPECT_FALSE(plan_sampling(1000, {1.0f, 1000, 1.0f}).top_k_cut);
  EXPECT_FALSE(plan_sampling(1000, {1.0f, 5000, 1.0f}).top_k_cut);
  EXPECT_TRUE(plan_sampling(1000, {1.0f, 999, 1.0f}).top_k_cut);
}

TEST(SamplingPlan, FixedPointSumsOfTheWholeVocabularyFitIn63Bits) {
  for (const int64_t vocab :
       std::initializer_list<int64_t>{1, 1000, 32000, kLlama3Vocab, int64_t{1} << 20, 2147483647}) {
    const SamplingPlan plan = plan_sampling(vocab, {1.0f, 0, 0.9f});
    EXPECT_LE(plan.fixed_point_bits, 52);
    // Every weight is <= 1: vocab of them at 2^bits each stays below 2^63.
    EXPECT_LT(std::log2(static_cast<double>(vocab)) + plan.fixed_point_bits, 63.0) << vocab;
  }
  EXPECT_EQ(plan_sampling(kLlama3Vocab, {1.0f, 0, 0.9f}).fixed_point_bits, 46);
  EXPECT_EQ(plan_sampling(1000, {1.0f, 0, 0.9f}).fixed_point_bits, 52);
}

TEST(SamplingPlan, SharedMemoryFitsTheStaticLimit) {
  EXPECT_LE(plan_sampling(kLlama3Vocab, {1.0f, 50, 0.9f}).shared_bytes, 48u * 1024u);
}

TEST(SamplingPlan, RejectsWhatTheReferenceRejects) {
  EXPECT_THROW(plan_sampling(1000, {-1.0f, 0, 1.0f}), std::invalid_argument);
  EXPECT_THROW(plan_sampling(1000, {1.0f, -1, 1.0f}), std::invalid_argument);
  EXPECT_THROW(plan_sampling(1000, {1.0f, 0, 0.0f}), std::invalid_argument);
  EXPECT_THROW(plan_sampling(1000, {1.0f, 0, 1.5f}), std::invalid_argument);
  EXPECT_THROW(plan_sampling(0, {1.0f, 0, 1.0f}), std::invalid_argument);
  EXPECT_THROW(plan_sampling(int64_t{1} << 31, {1.0f, 0, 1.0f}), std::invalid_argument);
}

}  // namespace
}  // namespace tidal::kernels::cuda
