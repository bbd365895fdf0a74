#include "reports/chart_block.h"

namespace tidal::reports {
namespace {

using ojson = nlohmann::ordered_json;

ojson series_json(const Series& s, bool with_x) {
  ojson j{{"name", s.name}};
  if (with_x) j["x"] = s.x;
  j["y"] = s.y;
  return j;
}

}  // namespace

Chart xy_chart_block(const std::string& id, const XYChart& chart) {
  ojson series = ojson::array();
  for (const Series& s : chart.series) series.push_back(series_json(s, true));
  return Chart{
      id, chart.title, render_xy_chart(chart),
      ojson{{"x_axis", chart.x_axis.label}, {"y_axis", chart.y_axis.label}, {"series", series}}};
}

Chart bar_chart_block(const std::string& id, const BarChart& chart) {
  ojson series = ojson::array();
  for (const Series& s : chart.series) series.push_back(series_json(s, false));
  return Chart{
      id, chart.title, render_bar_chart(chart),
      ojson{{"categories", chart.categories}, {"y_axis", chart.y_axis.label}, {"series", series}}};
}

TimeAxis time_axis_for(double duration_s) {
  if (duration_s > 36000.0) return TimeAxis{3600.0, "time (h)"};
  if (duration_s > 1200.0) return TimeAxis{60.0, "time (min)"};
  return TimeAxis{1.0, "time (s)"};
}

}  // namespace tidal::reports
