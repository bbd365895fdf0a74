// Series drawing: polylines decimated to one min/max pair per pixel column, dashes, and
// stacked step areas.
#include <algorithm>
#include <cmath>
#include <vector>

#include "ui/plot/plot_frame.h"

namespace tidal::ui::plot {
namespace {

constexpr float kLineWidth = 1.8f;
constexpr float kDashLength = 7.0f;
constexpr float kGapLength = 4.0f;
constexpr ImU32 kAreaAlpha = 0xD8;  // stacked areas are slightly see-through

// Indices [first, last) of the points that can show in `x`: one beyond each edge, so lines
// reach the border.
std::pair<size_t, size_t> visible_indices(std::span<const double> xs, const AxisRange& x) {
  const auto lo = std::lower_bound(xs.begin(), xs.end(), x.min);
  const auto hi = std::upper_bound(xs.begin(), xs.end(), x.max);
  const size_t first = lo == xs.begin() ? 0 : static_cast<size_t>(lo - xs.begin()) - 1;
  const size_t last = std::min(xs.size(), static_cast<size_t>(hi - xs.begin()) + 1);
  return {first, last};
}

void draw_dashed(ImDrawList& draw, const std::vector<ImVec2>& points, ImU32 color) {
  float phase = 0.0f;  // distance into the current dash + gap period
  const float period = kDashLength + kGapLength;
  for (size_t i = 1; i < points.size(); ++i) {
    const ImVec2 a = points[i - 1];
    const ImVec2 b = points[i];
    const float length = std::hypot(b.x - a.x, b.y - a.y);
    float done = 0.0f;
    while (done < length) {
      const float in_period = std::fmod(phase + done, period);
      const bool on = in_period < kDashLength;
      const float step = std::min(length - done, on ? kDashLength - in_period : period - in_period);
      if (on) {
        const float t0 = done / length;
        const float t1 = (done + step) / length;
        draw.AddLine(ImVec2(a.x + (b.x - a.x) * t0, a.y + (b.y - a.y) * t0),
                     ImVec2(a.x + (b.x - a.x) * t1, a.y + (b.y - a.y) * t1), color, kLineWidth);
      }
      done += step;
    }
    phase = std::fmod(phase + length, period);
  }
}

void flush(ImDrawList& draw, std::vector<ImVec2>& points, const Series& s) {
  if (points.size() >= 2) {
    if (s.style == SeriesStyle::dashed) {
      draw_dashed(draw, points, s.color);
    } else {
      draw.AddPolyline(points.data(), static_cast<int>(points.size()), s.color, ImDrawFlags_None,
                       kLineWidth);
    }
  } else if (points.size() == 1) {
    draw.AddCircleFilled(points[0], kLineWidth * 1.5f, s.color);
  }
  points.clear();
}

// Points of a line series; runs of points in one pixel column shrink to their first, min, max
// and last, so a million samples cost a few thousand vertices.
void draw_line(ImDrawList& draw, const PlotFrame& frame, const Series& s) {
  const auto [first, last] = visible_indices(s.x, frame.x);
  std::vector<ImVec2> points;  // [vertices of the current unbroken run]
  size_t i = first;
  while (i < last) {
    if (std::isnan(s.y[i])) {
      flush(draw, points, s);
      ++i;
      continue;
    }
    const float column = std::floor(frame.screen_x(s.x[i]));
    size_t j = i;
    float low = frame.screen_y(s.y[i]);
    float high = low;
    while (j + 1 < last && !std::isnan(s.y[j + 1]) &&
           std::floor(frame.screen_x(s.x[j + 1])) == column) {
      ++j;
      low = std::max(low, frame.screen_y(s.y[j]));
      high = std::min(high, frame.screen_y(s.y[j]));
    }
    points.emplace_back(frame.screen_x(s.x[i]), frame.screen_y(s.y[i]));
    if (j > i) {
      points.emplace_back(column, low);
      points.emplace_back(column, high);
      points.emplace_back(frame.screen_x(s.x[j]), frame.screen_y(s.y[j]));
    }
    i = j + 1;
  }
  flush(draw, points, s);
}

}  // namespace

double visible_y_max(std::span<const Series> series, const AxisRange& x) {
  double top = 0.0;
  std::vector<double> stacked;  // [num_points] running sum of the stacked series so far
  for (const Series& s : series) {
    const auto [first, last] = visible_indices(s.x, x);
    if (s.style == SeriesStyle::stacked_area) stacked.resize(std::max(stacked.size(), s.y.size()));
    for (size_t i = first; i < last; ++i) {
      if (std::isnan(s.y[i])) continue;
      double value = s.y[i];
      if (s.style == SeriesStyle::stacked_area) value = (stacked[i] += s.y[i]);
      top = std::max(top, value);
    }
  }
  return top;
}

void draw_series(ImDrawList& draw, const PlotFrame& frame, std::span<const Series> series) {
  std::vector<double> base;  // [num_points] top of the stacked series drawn so far
  for (const Series& s : series) {
    if (s.style != SeriesStyle::stacked_area) {
      draw_line(draw, frame, s);
      continue;
    }
    base.resize(std::max(base.size(), s.y.size()), 0.0);
    const auto [first, last] = visible_indices(s.x, frame.x);
    for (size_t i = 0; i < s.y.size(); ++i) {
      if (std::isnan(s.y[i]) || s.y[i] == 0.0) continue;
      const double bottom = base[i];
      base[i] += s.y[i];
      if (i < first || i >= last) continue;
      draw.AddRectFilled(ImVec2(frame.screen_x(s.x[i]), frame.screen_y(base[i])),
                         ImVec2(frame.screen_x(s.x_end[i]), frame.screen_y(bottom)),
                         (s.color & ~IM_COL32_A_MASK) | (kAreaAlpha << IM_COL32_A_SHIFT));
    }
  }
}

}  // namespace tidal::ui::plot
