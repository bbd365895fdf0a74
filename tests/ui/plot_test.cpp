#include "ui/plot/plot.h"

#include <vector>

#include <gtest/gtest.h>

namespace tidal::ui::plot {
namespace {

TEST(Plot, ReadOutSamplesTheLastPointAtOrBeforeX) {
  const std::vector<double> xs{0.0, 5.0, 10.0, 15.0};
  EXPECT_EQ(sample_index_at(xs, -1.0), -1);
  EXPECT_EQ(sample_index_at(xs, 0.0), 0);
  EXPECT_EQ(sample_index_at(xs, 4.999), 0);
  EXPECT_EQ(sample_index_at(xs, 5.0), 1);
  EXPECT_EQ(sample_index_at(xs, 100.0), 3);
  EXPECT_EQ(sample_index_at({}, 1.0), -1);
}

}  // namespace
}  // namespace tidal::ui::plot
