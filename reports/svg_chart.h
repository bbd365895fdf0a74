// Inline SVG charts written by tidal: x-y charts (lines, steps, stacked areas, points) and
// grouped bar charts, with axes, ticks, unit-aware tick labels, grid lines, a legend and a
// title. The output is one <svg> element, well-formed XML, with no scripts or external
// references, ready to paste into an HTML page.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reports/axis_scale.h"

namespace tidal::reports {

struct Axis {
  Axis(std::string label_ = "", AxisUnit unit_ = AxisUnit::number, bool log_ = false,
       std::optional<double> min_ = std::nullopt, std::optional<double> max_ = std::nullopt)
      : label(std::move(label_)), unit(unit_), log(log_), min(min_), max(max_) {}

  std::string label;  // says what and in which unit: "TTFT", "requests/s"
  AxisUnit unit;      // how tick labels print
  bool log;           // log10 scale; values <= 0 sit on the axis' low end
  // Linear axes: true ends the axis at the data (time axes), false widens it to round ticks.
  bool tight = false;
  std::optional<double> min;  // forced range ends (else from the data)
  std::optional<double> max;
};

// The y axis of a CDF: share of samples, 0% to 100%.
inline Axis share_axis() {
  return Axis("share of requests", AxisUnit::percent, false, 0.0, 1.0);
}

enum class SeriesStyle {
  line,          // straight segments between points
  step,          // holds each y until the next x (interval data)
  stacked_area,  // step areas stacked on the previous stacked series
  points,        // markers only
};

struct Series {
  std::string name;
  std::vector<double> x;  // [num_points]
  std::vector<double> y;  // [num_points]
  SeriesStyle style = SeriesStyle::line;
};

struct XYChart {
  XYChart(std::string title_, Axis x, Axis y)
      : title(std::move(title_)), x_axis(std::move(x)), y_axis(std::move(y)) {}

  std::string title;
  Axis x_axis;
  Axis y_axis;
  std::vector<Series> series;
  int width = 560;
  int height = 280;
};

struct BarChart {
  BarChart(std::string title_, Axis y) : title(std::move(title_)), y_axis(std::move(y)) {}

  std::string title;
  Axis y_axis;                          // linear, from zero
  std::vector<std::string> categories;  // [num_categories] along the x axis
  std::vector<Series> series;           // y: [num_categories] each; x unused
  int width = 560;
  int height = 280;
};

std::string render_xy_chart(const XYChart& chart);
std::string render_bar_chart(const BarChart& chart);

// Colour of the i-th series (a fixed palette that stays apart in print and for most colour
// vision deficiencies).
const char* series_colour(size_t index);

// Text escaped for XML/HTML element content and attribute values.
std::string xml_escape(const std::string& text);

}  // namespace tidal::reports
