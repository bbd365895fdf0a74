// bench/silicon's targets check: the overall figures against each issue's bound, and the groups
// above twice the overall figure (issue 18's "no group above 2x").
#include <gtest/gtest.h>

#include <vector>

#include "validate/silicon_targets.h"

namespace tidal::validate {
namespace {

ErrorFigures figures(double ttft_mape_pct, double tpot_mape_pct) {
  ErrorFigures f;
  f.ttft_mape_pct = ttft_mape_pct;
  f.tpot_mape_pct = tpot_mape_pct;
  return f;
}

TEST(SiliconTargets, TheIssuesBounds) {
  EXPECT_DOUBLE_EQ(aggregated_targets().ttft_mape_pct, 15.0);
  EXPECT_DOUBLE_EQ(aggregated_targets().tpot_mape_pct, 8.0);
  EXPECT_DOUBLE_EQ(aggregated_targets().max_group_over_overall, 2.0);
  EXPECT_DOUBLE_EQ(disaggregated_targets().ttft_mape_pct, 20.0);
  EXPECT_DOUBLE_EQ(disaggregated_targets().tpot_mape_pct, 20.0);
  EXPECT_DOUBLE_EQ(disaggregated_targets().max_group_over_overall, 0.0);
}

TEST(SiliconTargets, OverallFiguresAtTheBoundMeetIt) {
  const TargetCheck at = check_targets(aggregated_targets(), figures(15.0, 8.0), {});
  EXPECT_TRUE(at.ttft_met);
  EXPECT_TRUE(at.tpot_met);
  EXPECT_TRUE(at.met());
  const TargetCheck above = check_targets(aggregated_targets(), figures(15.1, 7.0), {});
  EXPECT_FALSE(above.ttft_met);
  EXPECT_TRUE(above.tpot_met);
  EXPECT_FALSE(above.met());
}

TEST(SiliconTargets, GroupsAboveTwiceTheOverallFigureAreListedInOrder) {
  const std::vector<GroupErrors> groups = {
      {"a", 10, figures(20.0, 16.0)},  // exactly twice both: within
      {"b", 4, figures(20.1, 3.0)},    // TTFT above
      {"c", 7, figures(5.0, 16.5)},    // TPOT above
      {"d", 2, figures(50.0, 40.0)},   // both above
  };
  const TargetCheck check = check_targets(aggregated_targets(), figures(10.0, 8.0), groups);
  EXPECT_DOUBLE_EQ(check.group_ttft_bound_pct, 20.0);
  EXPECT_DOUBLE_EQ(check.group_tpot_bound_pct, 16.0);
  ASSERT_EQ(check.groups_over.size(), 3u);
  EXPECT_EQ(check.groups_over[0].group, "b");
  EXPECT_EQ(check.groups_over[0].num_rows, 4u);
  EXPECT_TRUE(check.groups_over[0].ttft_over);
  EXPECT_FALSE(check.groups_over[0].tpot_over);
  EXPECT_EQ(check.groups_over[1].group, "c");
  EXPECT_FALSE(check.groups_over[1].ttft_over);
  EXPECT_TRUE(check.groups_over[1].tpot_over);
  EXPECT_EQ(check.groups_over[2].group, "d");
  EXPECT_TRUE(check.groups_over[2].ttft_over && check.groups_over[2].tpot_over);
  EXPECT_DOUBLE_EQ(check.groups_over[2].ttft_mape_pct, 50.0);
  EXPECT_FALSE(check.groups_met);
  EXPECT_FALSE(check.met());  // the overall figures meet, a group does not
  EXPECT_TRUE(check.ttft_met && check.tpot_met);
}

TEST(SiliconTargets, WithoutAGroupBoundNoGroupMisses) {
  const std::vector<GroupErrors> groups = {{"x | disagg", 3, figures(500.0, 300.0)}};
  const TargetCheck check = check_targets(disaggregated_targets(), figures(18.0, 12.0), groups);
  EXPECT_TRUE(check.groups_over.empty());
  EXPECT_TRUE(check.groups_met);
  EXPECT_TRUE(check.met());
}

}  // namespace
}  // namespace tidal::validate
