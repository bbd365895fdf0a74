#include "ui/comparison.h"

#include <gtest/gtest.h>

namespace tidal::ui {
namespace {

const DeltaRow& row(const std::vector<DeltaRow>& rows, const std::string& metric) {
  for (const DeltaRow& r : rows) {
    if (r.metric == metric) return r;
  }
  throw std::runtime_error("no row " + metric);
}

TEST(Comparison, DeltaRowsCompareTheHeadlineFigures) {
  reports::RunSummary pinned;
  pinned.ttft.p99_s = 2.0;
  pinned.dollars = 100.0;
  pinned.slo_attainment = 0.8;
  pinned.num_finished = 1000;
  pinned.dollars_per_1m_tokens = 0.5;
  reports::RunSummary current = pinned;
  current.ttft.p99_s = 1.0;
  current.dollars = 150.0;
  current.slo_attainment = 0.9;
  current.dollars_per_1m_tokens.reset();

  const std::vector<DeltaRow> rows = delta_rows(pinned, current);
  const DeltaRow& ttft = row(rows, "TTFT p99");
  EXPECT_DOUBLE_EQ(*ttft.relative_change(), -0.5);
  EXPECT_EQ(ttft.verdict(), 1);
  EXPECT_EQ(ttft.unit, plot::Unit::latency);
  const DeltaRow& dollars = row(rows, "dollars");
  EXPECT_DOUBLE_EQ(*dollars.relative_change(), 0.5);
  EXPECT_EQ(dollars.verdict(), -1);
  EXPECT_EQ(row(rows, "SLO attainment").verdict(), 1);
  EXPECT_EQ(row(rows, "requests finished").verdict(), 0);
  EXPECT_DOUBLE_EQ(*row(rows, "requests finished").relative_change(), 0.0);
  const DeltaRow& per_token = row(rows, "$ / 1M tokens");
  EXPECT_FALSE(per_token.current.has_value());
  EXPECT_FALSE(per_token.relative_change().has_value());
  EXPECT_EQ(per_token.verdict(), 0);
  EXPECT_FALSE(row(rows, "TPOT p99").relative_change().has_value());  // no figures at all
}

}  // namespace
}  // namespace tidal::ui
