// A small plotting layer over ImDrawList (Debian ships no ImPlot): line, dashed and stacked
// step-area series with nice-number ticks, unit-aware labels, a legend, a hover read-out, and
// mouse-wheel zoom, drag pan and double-click reset on a shared time axis.
#pragma once

#include <optional>
#include <span>
#include <string>

#include <imgui.h>

#include "ui/plot/axis_view.h"
#include "ui/plot/units.h"

namespace tidal::ui::plot {

enum class SeriesStyle {
  line,          // straight segments through the points
  dashed,        // the same, dashed (an overlaid pinned run)
  stacked_area,  // each value fills [x[i], x_end[i]) on top of the previous stacked series
};

struct Series {
  std::string label;
  std::span<const double> x;      // [num_points] ascending
  std::span<const double> y;      // [num_points] NaN leaves a gap
  std::span<const double> x_end;  // [num_points] stacked_area only: where each value ends
  ImU32 color = 0;
  SeriesStyle style = SeriesStyle::line;
};

struct PlotSpec {
  std::string title;
  std::string note;  // grey text after the title, e.g. "peak/mean 4.2x"
  Unit x_unit = Unit::run_time;
  Unit y_unit = Unit::count;
  AxisView* x_view = nullptr;   // shared zoom/pan of time plots; nullptr fits x to the data
  std::optional<double> y_max;  // a fixed top (1 for shares and CDFs); else the visible maximum
};

// Draws one plot filling `size` from the cursor. `id` must be unique in the current window.
void draw_plot(const char* id, const PlotSpec& spec, std::span<const Series> series, ImVec2 size);

// Where the hover read-out of a series samples `x`: the index of the last point at or before x,
// or -1 when x precedes every point. Exposed for tests.
int sample_index_at(std::span<const double> xs, double x);

}  // namespace tidal::ui::plot
