// Charts as document blocks: the SVG for report.html plus the plotted data for report.json.
#pragma once

#include <string>

#include "reports/document.h"
#include "reports/svg_chart.h"

namespace tidal::reports {

Chart xy_chart_block(const std::string& id, const XYChart& chart);
Chart bar_chart_block(const std::string& id, const BarChart& chart);

// Time axis for a run of `duration_s`: seconds, minutes or hours so ticks stay readable.
struct TimeAxis {
  double divisor = 1.0;  // seconds per axis unit
  std::string label;     // "time (min)"

  // A tight linear axis in these units.
  Axis axis() const {
    Axis a(label);
    a.tight = true;
    return a;
  }
};
TimeAxis time_axis_for(double duration_s);

}  // namespace tidal::reports
