// Table interpolation: exact at points, linear between, clamp below, scale above.
#include <gtest/gtest.h>

#include "perf/interpolation.h"

namespace tidal::perf {
namespace {

TEST(Table1D, ExactAtPointsLinearBetween) {
  const Table1D table({1, 10, 100}, {2.0, 4.0, 22.0});
  EXPECT_EQ(table(1), 2.0);
  EXPECT_EQ(table(10), 4.0);
  EXPECT_EQ(table(100), 22.0);
  EXPECT_DOUBLE_EQ(table(5.5), 3.0);
  EXPECT_DOUBLE_EQ(table(55), 13.0);
}

TEST(Table1D, ClampsBelowAndScalesAbove) {
  const Table1D table({4, 8}, {1.0, 3.0});
  EXPECT_EQ(table(1), 1.0);
  EXPECT_EQ(table(0), 1.0);
  EXPECT_DOUBLE_EQ(table(16), 6.0);  // 3 x 16 / 8, not the segment's slope (which gives 7)
  EXPECT_DOUBLE_EQ(table(80), 30.0);
}

TEST(Table1D, SinglePoint) {
  const Table1D table({10}, {5.0});
  EXPECT_EQ(table(3), 5.0);
  EXPECT_DOUBLE_EQ(table(20), 10.0);
}

TEST(Table2D, BilinearInsideScaledOutside) {
  // rows 1, 3; cols 0, 10: values [[1, 2], [3, 6]]
  const Table2D table({1, 3}, {0, 10}, {1, 2, 3, 6});
  EXPECT_EQ(table(1, 0), 1.0);
  EXPECT_EQ(table(3, 10), 6.0);
  EXPECT_DOUBLE_EQ(table(2, 5), (1.5 + 4.5) / 2);
  EXPECT_DOUBLE_EQ(table(2, 20), 4.0 * 2);      // col above: value at col 10 scaled by 2
  EXPECT_DOUBLE_EQ(table(6, 10), 6.0 * 2);      // row above
  EXPECT_DOUBLE_EQ(table(6, 20), 6.0 * 2 * 2);  // both
  EXPECT_EQ(table(0, 0), 1.0);                  // row below clamps
}

}  // namespace
}  // namespace tidal::perf
