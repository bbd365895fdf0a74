// --slo parsing and evaluation against run metrics.
#include <gtest/gtest.h>

#include "base/input_error.h"
#include "plan/slo_target.h"

namespace tidal::plan {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_slo_target(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SloTarget, ParsesMetricsUnitsAndClasses) {
  SloTarget t = parse_slo_target("p99_ttft<=500ms");
  EXPECT_FALSE(t.slo_class);
  EXPECT_EQ(t.metric, "p99_ttft");
  EXPECT_TRUE(t.upper_bound);
  EXPECT_DOUBLE_EQ(t.value, 0.5);
  EXPECT_EQ(t.text, "p99_ttft<=0.5 s");
  t = parse_slo_target("interactive:p90_e2e<=30");
  EXPECT_EQ(*t.slo_class, "interactive");
  EXPECT_DOUBLE_EQ(t.value, 30.0);
  EXPECT_EQ(t.text, "interactive:p90_e2e<=30 s");
  t = parse_slo_target("attainment>=99%");
  EXPECT_FALSE(t.upper_bound);
  EXPECT_DOUBLE_EQ(t.value, 0.99);
  EXPECT_EQ(t.text, "attainment>=99%");
  EXPECT_DOUBLE_EQ(parse_slo_target("attainment>=0.95").value, 0.95);
  EXPECT_DOUBLE_EQ(parse_slo_target("goodput>=4.5req/s").value, 4.5);
  EXPECT_DOUBLE_EQ(parse_slo_target("mean_queue_delay<=0.2s").value, 0.2);
}

TEST(SloTarget, RejectsMalformedTargets) {
  const std::string usage =
      " (expected [CLASS:]METRIC<=VALUE or METRIC>=VALUE, e.g. p99_ttft<=1s, "
      "interactive:p90_e2e<=30s, attainment>=99%)";
  EXPECT_EQ(error_of("p99_ttft=1"), "--slo \"p99_ttft=1\": no <= or >=" + usage);
  EXPECT_EQ(error_of("p98_ttft<=1"), "--slo \"p98_ttft<=1\": unknown metric \"p98_ttft\"" + usage);
  EXPECT_EQ(error_of("p99_ttft>=1"), "--slo \"p99_ttft>=1\": latency metrics take <=" + usage);
  EXPECT_EQ(error_of("attainment<=0.9"), "--slo \"attainment<=0.9\": attainment takes >=" + usage);
  EXPECT_EQ(error_of("p99_ttft<=fast"),
            "--slo \"p99_ttft<=fast\": \"fast\" is not a non-negative number" + usage);
  EXPECT_EQ(error_of("batch:p99_itl<=1"),
            "--slo \"batch:p99_itl<=1\": unknown metric \"p99_itl\"" + usage);
  EXPECT_EQ(error_of("attainment>=120%"),
            "--slo \"attainment>=120%\": attainment is at most 100%" + usage);
}

TEST(SloTarget, EvaluatesAgainstMetrics) {
  sim::RunMetrics m;
  m.ttft = sim::LatencySummary{100, 0.2, 0.15, 0.4, 0.8, 1.2};
  m.slo_attainment = 0.97;
  sim::ClassMetrics c;
  c.name = "interactive";
  c.ttft = sim::LatencySummary{50, 0.1, 0.1, 0.2, 0.3, 0.4};
  c.slo_attainment = 0.999;
  m.classes.push_back(c);
  const std::vector<SloTarget> ok{parse_slo_target("p99_ttft<=1s"),
                                  parse_slo_target("interactive:p99_ttft<=300ms"),
                                  parse_slo_target("interactive:attainment>=99.9%")};
  EXPECT_FALSE(slo_violation(ok, m).has_value());
  EXPECT_EQ(*slo_violation({parse_slo_target("p99_ttft<=0.5")}, m), "p99_ttft = 800 ms > 500 ms");
  m.ttft.p99 = 56743.2;
  EXPECT_EQ(*slo_violation({parse_slo_target("p99_ttft<=2s")}, m), "p99_ttft = 56,743 s > 2 s");
  EXPECT_EQ(*slo_violation({parse_slo_target("attainment>=99%")}, m), "attainment = 97% < 99%");
  EXPECT_EQ(*slo_violation({parse_slo_target("p99_tpot<=1")}, m),
            "p99_tpot is undefined (no finished request)");
  EXPECT_FALSE(slo_value(parse_slo_target("other:p99_ttft<=1"), m).has_value());
}

TEST(SloTarget, SaysWhetherARunNeedsItsItlSamples) {
  EXPECT_FALSE(bounds_itl({}));
  EXPECT_FALSE(
      bounds_itl({parse_slo_target("p99_ttft<=1s"), parse_slo_target("p90_tpot<=50ms"),
                  parse_slo_target("mean_queue_delay<=1"), parse_slo_target("attainment>=99%")}));
  EXPECT_TRUE(bounds_itl({parse_slo_target("p99_ttft<=1s"), parse_slo_target("p99_itl<=80ms")}));
  EXPECT_TRUE(bounds_itl({parse_slo_target("max_itl<=1")}));
}

}  // namespace
}  // namespace tidal::plan
