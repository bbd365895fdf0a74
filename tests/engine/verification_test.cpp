// Draft verification: greedy acceptance rules, the residual distribution, and a chi-square test
// showing that rejection sampling emits tokens distributed exactly as the target.
#include <array>
#include <vector>

#include <gtest/gtest.h>

#include "engine/verification.h"
#include "kernels/sampling.h"

namespace tidal::engine {
namespace {

constexpr int64_t kVocab = 6;

TEST(VerifyGreedy, AcceptsTheMatchingPrefixThenEmitsTheTargetToken) {
  // Target argmax per row: 2, 4, 1, 5.
  std::vector<float> logits(4 * kVocab, 0.0f);  // [k + 1, vocab]
  const std::array<int32_t, 4> best = {2, 4, 1, 5};
  for (size_t r = 0; r < best.size(); ++r) logits[r * kVocab + best[r]] = 3.0f;
  std::vector<int32_t> out;
  verify_greedy(logits.data(), kVocab, std::vector<int32_t>{2, 4, 1}, out);
  EXPECT_EQ(out, (std::vector<int32_t>{2, 4, 1, 5})) << "all accepted, plus the bonus token";
  verify_greedy(logits.data(), kVocab, std::vector<int32_t>{2, 3, 1}, out);
  EXPECT_EQ(out, (std::vector<int32_t>{2, 4})) << "stops at the first mismatch";
  verify_greedy(logits.data(), kVocab, std::vector<int32_t>{0, 4, 1}, out);
  EXPECT_EQ(out, (std::vector<int32_t>{2}));
  verify_greedy(logits.data(), kVocab, std::vector<int32_t>{}, out);
  EXPECT_EQ(out, (std::vector<int32_t>{2})) << "no drafts: plain greedy";
}

TEST(ResidualDistribution, IsTheNormalisedPositivePartOfTheDifference) {
  const std::array<float, kVocab> p = {0.1f, 0.4f, 0.2f, 0.3f, 0.0f, 0.0f};
  const std::array<float, kVocab> q = {0.3f, 0.1f, 0.2f, 0.1f, 0.3f, 0.0f};
  std::array<float, kVocab> residual{};
  residual_distribution(p.data(), q.data(), kVocab, residual.data());
  // max(0, p - q) = {0, 0.3, 0, 0.2, 0, 0}, sum 0.5.
  const std::array<float, kVocab> expected = {0.0f, 0.6f, 0.0f, 0.4f, 0.0f, 0.0f};
  for (int64_t v = 0; v < kVocab; ++v) EXPECT_NEAR(residual[v], expected[v], 1e-6f) << v;
  residual_distribution(p.data(), p.data(), kVocab, residual.data());
  for (int64_t v = 0; v < kVocab; ++v) EXPECT_EQ(residual[v], p[v]) << "p == q falls back to p";
}

// Pearson's chi-square statistic of observed counts against probabilities.
double chi_square(const std::array<int64_t, kVocab>& counts, const std::array<float, kVocab>& p,
                  int64_t num_trials) {
  double statistic = 0.0;
  for (int64_t v = 0; v < kVocab; ++v) {
    const double expected = static_cast<double>(p[v]) * static_cast<double>(num_trials);
    const double diff = static_cast<double>(counts[v]) - expected;
    statistic += diff * diff / expected;
  }
  return statistic;
}

// 5 degrees of freedom: P(chi2 > 20.52) = 0.001.
constexpr double kChiSquareCritical = 20.52;
constexpr int64_t kTrials = 200'000;

const std::array<float, kVocab> kTarget = {0.30f, 0.05f, 0.25f, 0.10f, 0.20f, 0.10f};
const std::array<float, kVocab> kDraft = {0.10f, 0.40f, 0.05f, 0.25f, 0.15f, 0.05f};
const std::array<float, kVocab> kBonus = {0.05f, 0.15f, 0.20f, 0.30f, 0.10f, 0.20f};

TEST(RejectionSampling, FirstTokenFollowsTheTargetForADraftModel) {
  kernels::SamplingRng rng(2024);
  std::vector<float> target(kTarget.begin(), kTarget.end());  // [k + 1, vocab], k = 1
  target.insert(target.end(), kBonus.begin(), kBonus.end());
  std::array<int64_t, kVocab> first{};
  std::array<int64_t, kVocab> bonus{};
  int64_t num_accepted = 0;
  std::vector<int32_t> out;
  for (int64_t t = 0; t < kTrials; ++t) {
    const int32_t draft = kernels::sample_from_distribution(kDraft.data(), kVocab, rng.uniform());
    verify_stochastic(target.data(), kDraft, kVocab, std::span<const int32_t>(&draft, 1), rng, out);
    ASSERT_GE(out.size(), 1u);
    ++first[static_cast<size_t>(out[0])];
    if (out.size() == 2) {
      ++num_accepted;
      ++bonus[static_cast<size_t>(out[1])];
    }
  }
  EXPECT_LT(chi_square(first, kTarget, kTrials), kChiSquareCritical);
  EXPECT_LT(chi_square(bonus, kBonus, num_accepted), kChiSquareCritical);
  // Acceptance probability is sum_v min(p(v), q(v)) = 0.50.
  EXPECT_NEAR(static_cast<double>(num_accepted) / kTrials, 0.50, 0.005);
}

TEST(RejectionSampling, FirstTokenFollowsTheTargetForADeterministicDrafter) {
  // An n-gram drafter proposes a fixed token (q one-hot): accepted with probability p(d).
  kernels::SamplingRng rng(7);
  std::vector<float> target(kTarget.begin(), kTarget.end());
  target.insert(target.end(), kBonus.begin(), kBonus.end());
  std::array<int64_t, kVocab> first{};
  std::vector<int32_t> out;
  const int32_t draft = 2;
  for (int64_t t = 0; t < kTrials; ++t) {
    verify_stochastic(target.data(), {}, kVocab, std::span<const int32_t>(&draft, 1), rng, out);
    ++first[static_cast<size_t>(out[0])];
  }
  EXPECT_LT(chi_square(first, kTarget, kTrials), kChiSquareCritical);
}

TEST(RejectionSampling, SecondTokenFollowsTheTargetAfterAnAcceptedFirst) {
  // Two drafts; condition on the first being accepted (out[0] == draft 0): then out[1] ~ row 1.
  kernels::SamplingRng rng(99);
  std::vector<float> target(kTarget.begin(), kTarget.end());  // [3, vocab]
  target.insert(target.end(), kBonus.begin(), kBonus.end());
  target.insert(target.end(), kTarget.begin(), kTarget.end());
  std::vector<float> draft_probs(kDraft.begin(), kDraft.end());  // [2, vocab]
  draft_probs.insert(draft_probs.end(), kDraft.begin(), kDraft.end());
  std::array<int64_t, kVocab> second{};
  int64_t num_conditioned = 0;
  std::vector<int32_t> out;
  for (int64_t t = 0; t < kTrials; ++t) {
    std::array<int32_t, 2> drafts{};
    for (int32_t& d : drafts) {
      d = kernels::sample_from_distribution(kDraft.data(), kVocab, rng.uniform());
    }
    verify_stochastic(target.data(), draft_probs, kVocab, drafts, rng, out);
    if (out.size() >= 2) {
      ++second[static_cast<size_t>(out[1])];
      ++num_conditioned;
    }
  }
  ASSERT_GT(num_conditioned, 50'000);
  EXPECT_LT(chi_square(second, kBonus, num_conditioned), kChiSquareCritical);
}

}  // namespace
}  // namespace tidal::engine
