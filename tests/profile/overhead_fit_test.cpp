// fit_overhead on synthetic samples whose residuals follow its model exactly: the share of
// operator time and the time per batch size come back; the decode steps' winsorized mean, the
// clamps and the fallbacks hold.
#include "engine/profile/overhead_fit.h"

#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace tidal::profile {
namespace {

// A decode-only step without operator time (residual: the time per batch size alone) and a
// prefill step of `operator_seconds` whose residual adds `share` of it.
OverheadSample decode(int64_t num_seqs, double seconds) {
  return {num_seqs, seconds, 0.0, false};
}
OverheadSample prefill(int64_t num_seqs, double per_seqs, double share, double operator_seconds) {
  return {num_seqs, per_seqs + share * operator_seconds, operator_seconds, true};
}

TEST(OverheadFit, RecoversTheShareAndTheTimePerBatchSize) {
  const std::vector<OverheadSample> samples{
      decode(1, 1e-6),
      decode(1, 1e-6),
      decode(4, 4e-6),
      decode(4, 4e-6),
      prefill(1, 1e-6, 0.03, 1e-3),
      prefill(4, 4e-6, 0.03, 4e-3),
      prefill(2, 2e-6, 0.03, 2e-3)};  // batch 2: decode time interpolated between 1 and 4
  const OverheadModel fit = fit_overhead(samples);
  EXPECT_NEAR(fit.share_of_operator_time, 0.03, 1e-12);
  EXPECT_EQ(fit.num_seqs, (std::vector<int64_t>{1, 2, 4}));
  ASSERT_EQ(fit.seconds.size(), 3u);
  EXPECT_NEAR(fit.seconds[0], 1e-6, 1e-15);
  EXPECT_NEAR(fit.seconds[1], 2e-6, 1e-15);
  EXPECT_NEAR(fit.seconds[2], 4e-6, 1e-15);
}

TEST(OverheadFit, DecodeTimesAreMeansWithTheTopPercentLowered) {
  // 101 decode steps of one sequence: 95 at 1 us, 5 at 3 us, 1 stall of 1 ms. The 99th percentile
  // (the 100th of 101 values) is 3 us: the stall counts as 3 us.
  std::vector<OverheadSample> samples(95, decode(1, 1e-6));
  for (int i = 0; i < 5; ++i) samples.push_back(decode(1, 3e-6));
  samples.push_back(decode(1, 1e-3));
  const OverheadModel fit = fit_overhead(samples);
  EXPECT_NEAR(fit.seconds[0], (95 * 1e-6 + 6 * 3e-6) / 101, 1e-15);
}

TEST(OverheadFit, TheShareIsClampedAndTimesAreNotNegative) {
  const OverheadModel high =
      fit_overhead(std::vector<OverheadSample>{decode(1, 1e-6), prefill(1, 1e-6, 3.0, 1e-3)});
  EXPECT_DOUBLE_EQ(high.share_of_operator_time, 1.0);
  const OverheadModel low =
      fit_overhead(std::vector<OverheadSample>{decode(1, -1e-6), prefill(1, -1e-6, -0.9, 1e-3)});
  EXPECT_DOUBLE_EQ(low.share_of_operator_time, -0.5);
  EXPECT_EQ(low.seconds, (std::vector<double>{0.0}));  // the decode residual -1 us clamps
}

TEST(OverheadFit, WithoutBothKindsOfStepTheShareIsZero) {
  const OverheadModel only_prefill =
      fit_overhead(std::vector<OverheadSample>{prefill(2, 5e-6, 0.1, 1e-3)});
  EXPECT_DOUBLE_EQ(only_prefill.share_of_operator_time, 0.0);
  EXPECT_NEAR(only_prefill.seconds[0], 5e-6 + 1e-4, 1e-15);  // the median residual, as it is
  const OverheadModel only_decode = fit_overhead(std::vector<OverheadSample>{decode(3, 2e-6)});
  EXPECT_DOUBLE_EQ(only_decode.share_of_operator_time, 0.0);
  EXPECT_THROW(fit_overhead(std::vector<OverheadSample>{}), std::invalid_argument);
}

}  // namespace
}  // namespace tidal::profile
