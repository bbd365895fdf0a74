#include "ui/plot/axis_view.h"

#include <gtest/gtest.h>

namespace tidal::ui::plot {
namespace {

TEST(AxisView, FitsNewLimitsAndKeepsAZoomForTheSameLimits) {
  AxisView view;
  view.set_limits({0.0, 100.0});
  EXPECT_EQ(view.view(), (AxisRange{0.0, 100.0}));
  EXPECT_FALSE(view.zoomed());
  view.zoom(50.0, 0.5);
  EXPECT_TRUE(view.zoomed());
  view.set_limits({0.0, 100.0});
  EXPECT_EQ(view.view(), (AxisRange{25.0, 75.0}));
  view.set_limits({0.0, 200.0});
  EXPECT_EQ(view.view(), (AxisRange{0.0, 200.0}));
}

TEST(AxisView, FollowingGrowingLimitsKeepsShowingAllOrKeepsTheZoom) {
  AxisView view;
  view.follow_limits({0.0, 10.0});
  EXPECT_EQ(view.view(), (AxisRange{0.0, 10.0}));
  view.follow_limits({0.0, 20.0});  // a live run grew: still everything
  EXPECT_EQ(view.view(), (AxisRange{0.0, 20.0}));
  view.zoom(5.0, 0.5);
  const AxisRange zoomed = view.view();
  view.follow_limits({0.0, 40.0});  // zoomed: the view stays
  EXPECT_EQ(view.view(), zoomed);
  EXPECT_EQ(view.limits(), (AxisRange{0.0, 40.0}));
}

TEST(AxisView, ZoomKeepsTheAnchorInPlace) {
  AxisView view;
  view.set_limits({0.0, 100.0});
  view.zoom(20.0, 0.5);  // anchor at 20% of the view stays at 20%
  EXPECT_DOUBLE_EQ(view.view().min, 10.0);
  EXPECT_DOUBLE_EQ(view.view().max, 60.0);
  view.zoom(10.0, 0.1);
  EXPECT_DOUBLE_EQ(view.view().min, 10.0);
  EXPECT_DOUBLE_EQ(view.view().span(), 5.0);
}

TEST(AxisView, ZoomOutStopsAtTheLimitsAndZoomInAtTenThousandX) {
  AxisView view;
  view.set_limits({0.0, 100.0});
  view.zoom(90.0, 8.0);
  EXPECT_EQ(view.view(), (AxisRange{0.0, 100.0}));
  for (int i = 0; i < 100; ++i) view.zoom(50.0, 0.5);
  EXPECT_NEAR(view.view().span(), 0.01, 1e-9);
}

TEST(AxisView, PanStopsAtTheEdgesAndResetShowsEverything) {
  AxisView view;
  view.set_limits({0.0, 100.0});
  view.zoom(0.0, 0.2);  // [0, 20]
  view.pan(30.0);
  EXPECT_EQ(view.view(), (AxisRange{30.0, 50.0}));
  view.pan(500.0);
  EXPECT_EQ(view.view(), (AxisRange{80.0, 100.0}));
  view.pan(-500.0);
  EXPECT_EQ(view.view(), (AxisRange{0.0, 20.0}));
  view.reset();
  EXPECT_FALSE(view.zoomed());
}

}  // namespace
}  // namespace tidal::ui::plot
