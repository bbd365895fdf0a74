// SVG charts: well-formed, labelled, one mark per series, escaped text.
#include <gtest/gtest.h>

#include "reports/distribution.h"
#include "reports/svg_chart.h"
#include "tests/reports/run_fixture.h"

namespace tidal::reports {
namespace {

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t i = text.find(what); i != std::string::npos; i = text.find(what, i + 1)) ++n;
  return n;
}

TEST(SvgChart, LineChartIsWellFormedWithAxesAndLegend) {
  XYChart chart("Arrival <rate>", Axis("time (s)"), Axis("latency", AxisUnit::seconds));
  chart.series.push_back(Series{"alpha", {0, 10, 20}, {0.01, 0.5, 1.5}, SeriesStyle::line});
  chart.series.push_back(Series{"beta & co", {0, 10, 20}, {0.02, 0.2, 0.3}, SeriesStyle::step});
  const std::string svg = render_xy_chart(chart);
  EXPECT_EQ(testing::tag_balance_error(svg), "");
  EXPECT_TRUE(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_NE(svg.find("Arrival &lt;rate&gt;"), std::string::npos);
  EXPECT_NE(svg.find(">beta &amp; co<"), std::string::npos);
  EXPECT_NE(svg.find(">time (s)<"), std::string::npos);
  EXPECT_NE(svg.find(">latency<"), std::string::npos);
  EXPECT_NE(svg.find(">500 ms<"), std::string::npos);  // a y tick
  EXPECT_NE(svg.find(">1.5 s<"), std::string::npos);
  EXPECT_EQ(count_of(svg, "<polyline points=\"") - 1, 2u);  // minus the axis frame
  EXPECT_EQ(svg.find("<script"), std::string::npos);
}

TEST(SvgChart, StackedAreasAndPoints) {
  XYChart chart("Replicas", Axis("time"), Axis("replicas"));
  chart.series.push_back(Series{"warm", {0, 1, 2}, {2, 3, 3}, SeriesStyle::stacked_area});
  chart.series.push_back(Series{"starting", {0, 1, 2}, {1, 0, 0}, SeriesStyle::stacked_area});
  chart.series.push_back(Series{"marks", {0.5}, {2}, SeriesStyle::points});
  const std::string svg = render_xy_chart(chart);
  EXPECT_EQ(testing::tag_balance_error(svg), "");
  EXPECT_EQ(count_of(svg, "<polygon"), 2u);
  EXPECT_EQ(count_of(svg, "<circle"), 1u);
  EXPECT_NE(svg.find(">3<"), std::string::npos);  // stacked top 3 is on the axis
}

TEST(SvgChart, EmptyChartSaysNoData) {
  const std::string svg = render_xy_chart(XYChart("Nothing", Axis("x"), Axis("y")));
  EXPECT_EQ(testing::tag_balance_error(svg), "");
  EXPECT_NE(svg.find("no data"), std::string::npos);
}

TEST(SvgChart, BarChartHasOneBarPerValue) {
  BarChart chart("Cost", Axis("$", AxisUnit::dollars));
  chart.categories = {"run A", "run B", "run C"};
  chart.series.push_back(Series{"$ / 1M", {}, {4.0, 2.5, 9.0}, SeriesStyle::line});
  const std::string svg = render_bar_chart(chart);
  EXPECT_EQ(testing::tag_balance_error(svg), "");
  EXPECT_EQ(count_of(svg, "<rect") - 2, 3u);  // minus the background and the legend swatch
  EXPECT_NE(svg.find(">run B<"), std::string::npos);
}

TEST(Distribution, CdfAndPercentiles) {
  const std::vector<double> sorted = sorted_finite({5, 1, std::nan(""), 3, 2, 4});
  EXPECT_EQ(sorted, (std::vector<double>{1, 2, 3, 4, 5}));
  EXPECT_DOUBLE_EQ(nearest_rank(sorted, 50), 3);
  EXPECT_DOUBLE_EQ(nearest_rank(sorted, 99), 5);
  EXPECT_DOUBLE_EQ(nearest_rank(sorted, 20), 1);
  const Series cdf = cdf_series("x", sorted, 3);
  EXPECT_EQ(cdf.x, (std::vector<double>{1, 3, 5}));
  EXPECT_EQ(cdf.y, (std::vector<double>{0.2, 0.6, 1.0}));
}

TEST(Distribution, RatesAndPeakToMean) {
  const std::vector<double> start{0, 10, 20, 30};
  const std::vector<double> end{10, 20, 30, 40};
  const std::vector<double> counts =
      counts_per_interval({1, 2, 15, 15.5, 16, 17, 25, 99}, start, end);
  EXPECT_EQ(counts, (std::vector<double>{2, 4, 1, 1}));
  const RateProfile p = rate_profile(counts, start, end);
  EXPECT_DOUBLE_EQ(p.mean_per_s, 8.0 / 40.0);
  EXPECT_DOUBLE_EQ(p.peak_per_s, 0.4);
  EXPECT_DOUBLE_EQ(p.peak_to_mean, 2.0);
}

}  // namespace
}  // namespace tidal::reports
