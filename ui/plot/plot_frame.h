// The mapping between data and screen inside one plot's area, and the series drawing that
// uses it (internal to the plot widget).
#pragma once

#include <span>

#include <imgui.h>

#include "ui/plot/axis_view.h"
#include "ui/plot/plot.h"

namespace tidal::ui::plot {

struct PlotFrame {
  ImVec2 min;  // top-left of the plot area in screen pixels
  ImVec2 max;  // bottom-right
  AxisRange x;
  AxisRange y;

  float screen_x(double value) const {
    return min.x + static_cast<float>((value - x.min) / x.span()) * (max.x - min.x);
  }
  float screen_y(double value) const {
    return max.y - static_cast<float>((value - y.min) / y.span()) * (max.y - min.y);
  }
  double data_x(float px) const {
    return x.min + static_cast<double>((px - min.x) / (max.x - min.x)) * x.span();
  }
};

// The largest y a series reaches over the visible x range (stacked series summed); 0 if none.
double visible_y_max(std::span<const Series> series, const AxisRange& x);

// Draws every series into the frame (clipped by the caller).
void draw_series(ImDrawList& draw, const PlotFrame& frame, std::span<const Series> series);

}  // namespace tidal::ui::plot
