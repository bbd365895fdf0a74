// Spot interruptions: determinism, order independence, notice, mean lifetime.
#include "sim/fleet/spot.h"

#include <cmath>

#include <gtest/gtest.h>

#include "base/input_error.h"

namespace tidal::fleet {
namespace {

constexpr int64_t kS = 1'000'000'000;

TEST(Spot, DeterministicForASeedAndIndependentOfCallOrder) {
  const SpotSpec spec;
  const SpotInterruptionProcess a(spec, 42);
  const SpotInterruptionProcess b(spec, 42);
  const SpotInterruption first = a.interruption(7, 0, 0);
  a.interruption(3, 1, 0);  // other calls in between change nothing
  EXPECT_EQ(a.interruption(7, 0, 0).interrupt_ns, first.interrupt_ns);
  EXPECT_EQ(b.interruption(7, 0, 0).interrupt_ns, first.interrupt_ns);
  // The lease start only shifts the lifetime.
  EXPECT_EQ(a.interruption(7, 0, 100 * kS).interrupt_ns, first.interrupt_ns + 100 * kS);
  // Other seeds, replicas and leases draw other lifetimes.
  EXPECT_NE(SpotInterruptionProcess(spec, 43).interruption(7, 0, 0).interrupt_ns,
            first.interrupt_ns);
  EXPECT_NE(a.interruption(8, 0, 0).interrupt_ns, first.interrupt_ns);
  EXPECT_NE(a.interruption(7, 1, 0).interrupt_ns, first.interrupt_ns);
}

TEST(Spot, NoticeComesBeforeTheInterruption) {
  SpotSpec spec;
  spec.mean_time_between_interruptions_s = 3600;
  spec.notice_s = 120;
  const SpotInterruptionProcess process(spec, 1);
  int num_short = 0;
  for (uint64_t replica = 0; replica < 2000; ++replica) {
    const SpotInterruption event = process.interruption(replica, 0, 50 * kS);
    EXPECT_GT(event.interrupt_ns, 50 * kS);
    EXPECT_EQ(event.notice_ns, std::max<int64_t>(50 * kS, event.interrupt_ns - 120 * kS));
    if (event.notice_ns == 50 * kS) ++num_short;
  }
  EXPECT_GT(num_short, 0);  // lifetimes under the notice period get notice at once
}

TEST(Spot, MeanLifetimeMatchesTheSpec) {
  SpotSpec spec;
  spec.mean_time_between_interruptions_s = 6 * 3600;
  const SpotInterruptionProcess process(spec, 2024);
  const int num = 100'000;
  double sum_s = 0;
  double sum_sq = 0;
  for (int i = 0; i < num; ++i) {
    const double lifetime_s =
        static_cast<double>(process.interruption(static_cast<uint64_t>(i), 0, 0).interrupt_ns) / kS;
    sum_s += lifetime_s;
    sum_sq += lifetime_s * lifetime_s;
  }
  const double mean_s = sum_s / num;
  const double sd_s = std::sqrt(sum_sq / num - mean_s * mean_s);
  // Exponential: sd == mean; the sample mean is within 4 standard errors.
  EXPECT_NEAR(mean_s, 6 * 3600, 4 * 6 * 3600 / std::sqrt(num));
  EXPECT_NEAR(sd_s / mean_s, 1.0, 0.02);
}

TEST(Spot, ParsesTheSpec) {
  const SpotSpec spec = parse_spot_spec(
      {{"mean_time_between_interruptions_s", 7200}, {"notice_s", 30}}, "s.json", "spot");
  EXPECT_DOUBLE_EQ(spec.mean_time_between_interruptions_s, 7200);
  EXPECT_DOUBLE_EQ(spec.notice_s, 30);
  try {
    parse_spot_spec({{"mean_time_between_interruptions_s", 0}}, "s.json", "fleet.pools[2].spot");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(
        e.what(),
        "s.json: fleet.pools[2].spot.mean_time_between_interruptions_s: must be > 0 (got 0)");
  }
  EXPECT_THROW(parse_spot_spec({{"notice", 30}}, "s.json", "spot"), InputError);
}

}  // namespace
}  // namespace tidal::fleet
