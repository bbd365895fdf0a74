#include "reports/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace tidal::reports {
namespace {

constexpr double kCharWidth = 6.2;  // average advance of an 11 px sans-serif glyph
constexpr double kMarginLeft = 72.0;
constexpr double kMarginRight = 20.0;
constexpr double kMarginBottom = 46.0;
constexpr double kTitleHeight = 24.0;
constexpr double kLegendRowHeight = 16.0;

struct Frame {
  double left = 0, top = 0, right = 0, bottom = 0;  // plot area in pixels
  double px(const AxisScale& s, double v) const { return left + s.fraction(v) * (right - left); }
  double py(const AxisScale& s, double v) const { return bottom - s.fraction(v) * (bottom - top); }
};

// Legend items laid out in rows that fit `width`; returns the rows' item indices.
std::vector<std::vector<size_t>> legend_rows(const std::vector<Series>& series, double width) {
  std::vector<std::vector<size_t>> rows;
  double x = 0.0;
  for (size_t i = 0; i < series.size(); ++i) {
    const double item = 18.0 + kCharWidth * static_cast<double>(series[i].name.size()) + 14.0;
    if (rows.empty() || x + item > width) {
      rows.emplace_back();
      x = 0.0;
    }
    rows.back().push_back(i);
    x += item;
  }
  return rows;
}

void append_header(std::string& svg, int width, int height, const std::string& title) {
  svg += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\" font-family=\"sans-serif\" "
      "font-size=\"11\">",
      width, height, width, height, xml_escape(title));
  svg += fmt::format("<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>", width,
                     height);
  svg += fmt::format(
      "<text x=\"{:.1f}\" y=\"17\" text-anchor=\"middle\" font-size=\"13\" "
      "font-weight=\"bold\">{}</text>",
      width / 2.0, xml_escape(title));
}

double append_legend(std::string& svg, const std::vector<Series>& series, int width) {
  if (series.size() < 2 && (series.empty() || series[0].name.empty())) return 0.0;
  const auto rows = legend_rows(series, width - kMarginLeft - kMarginRight);
  for (size_t r = 0; r < rows.size(); ++r) {
    double x = kMarginLeft;
    const double y = kTitleHeight + 4.0 + kLegendRowHeight * static_cast<double>(r);
    for (size_t i : rows[r]) {
      svg += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"10\" fill=\"{}\"/>"
          "<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>",
          x, y, series_colour(i), x + 16.0, y + 9.0, xml_escape(series[i].name));
      x += 18.0 + kCharWidth * static_cast<double>(series[i].name.size()) + 14.0;
    }
  }
  return kLegendRowHeight * static_cast<double>(rows.size()) + 4.0;
}

Frame make_frame(int width, int height, double legend_height) {
  Frame f;
  f.left = kMarginLeft;
  f.right = width - kMarginRight;
  f.top = kTitleHeight + legend_height + 8.0;
  f.bottom = height - kMarginBottom;
  return f;
}

// Spacing of neighbouring ticks, for label decimals.
double tick_step(const AxisScale& s, size_t i) {
  if (s.log) return s.ticks[i];
  return s.ticks.size() > 1 ? s.ticks[1] - s.ticks[0] : 1.0;
}

void append_y_axis(std::string& svg, const Frame& f, const AxisScale& s, const Axis& axis) {
  for (size_t i = 0; i < s.ticks.size(); ++i) {
    const double y = f.py(s, s.ticks[i]);
    svg += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e3e3e3\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>",
        f.left, y, f.right, y, f.left - 6.0, y + 4.0,
        xml_escape(tick_label(s.ticks[i], tick_step(s, i), axis.unit)));
  }
  const double mid = (f.top + f.bottom) / 2.0;
  svg += fmt::format(
      "<text x=\"14\" y=\"{:.1f}\" text-anchor=\"middle\" transform=\"rotate(-90 14 {:.1f})\">"
      "{}</text>",
      mid, mid, xml_escape(axis.label));
}

void append_x_axis(std::string& svg, const Frame& f, const AxisScale& s, const Axis& axis,
                   int height) {
  for (size_t i = 0; i < s.ticks.size(); ++i) {
    const double x = f.px(s, s.ticks[i]);
    svg += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#f0f0f0\"/>"
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#444444\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>",
        x, f.top, x, f.bottom, x, f.bottom, x, f.bottom + 4.0, x, f.bottom + 16.0,
        xml_escape(tick_label(s.ticks[i], tick_step(s, i), axis.unit)));
  }
  svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                     (f.left + f.right) / 2.0, height - 8, xml_escape(axis.label));
}

void append_frame_lines(std::string& svg, const Frame& f) {
  svg += fmt::format(
      "<polyline points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\" fill=\"none\" "
      "stroke=\"#444444\"/>",
      f.left, f.top, f.left, f.bottom, f.right, f.bottom);
}

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool empty() const { return lo > hi; }
};

AxisScale make_scale(const Axis& axis, Range range, bool from_zero) {
  if (axis.min) range.add(*axis.min);
  if (axis.max) range.add(*axis.max);
  if (range.empty()) range = Range{0.0, 1.0};
  if (axis.log && range.lo > 0.0) return log_scale(range.lo, range.hi);
  if (from_zero && range.lo > 0.0) range.lo = 0.0;
  AxisScale s = linear_scale(range.lo, range.hi, axis.tight ? 6 : 5);
  if (axis.tight && range.hi > range.lo) {
    s.min = range.lo;
    s.max = range.hi;
  }
  if (axis.min) s.min = *axis.min;
  if (axis.max) s.max = *axis.max;
  std::erase_if(s.ticks, [&](double t) { return t < s.min - 1e-12 || t > s.max + 1e-12; });
  return s;
}

// Cumulative tops of the stacked series, per point.
std::vector<std::vector<double>> stack_tops(const std::vector<Series>& series) {
  std::vector<std::vector<double>> tops(series.size());
  std::vector<double> base;  // [num_points] running sum
  for (size_t i = 0; i < series.size(); ++i) {
    if (series[i].style != SeriesStyle::stacked_area) continue;
    base.resize(std::max(base.size(), series[i].y.size()), 0.0);
    for (size_t k = 0; k < series[i].y.size(); ++k) base[k] += series[i].y[k];
    tops[i].assign(base.begin(), base.begin() + static_cast<std::ptrdiff_t>(series[i].y.size()));
  }
  return tops;
}

std::string step_path_points(const Frame& f, const AxisScale& xs, const AxisScale& ys,
                             const std::vector<double>& x, const std::vector<double>& y) {
  std::string points;
  for (size_t k = 0; k < x.size(); ++k) {
    if (k > 0) points += fmt::format("{:.1f},{:.1f} ", f.px(xs, x[k]), f.py(ys, y[k - 1]));
    points += fmt::format("{:.1f},{:.1f} ", f.px(xs, x[k]), f.py(ys, y[k]));
  }
  return points;
}

}  // namespace

const char* series_colour(size_t index) {
  static constexpr const char* kPalette[] = {"#1f5fa8", "#e07b1a", "#2e9e5b", "#c8323c", "#7d55b5",
                                             "#8c6239", "#d45fa8", "#5f6b73", "#a8a21f", "#1fa8a3"};
  return kPalette[index % (sizeof(kPalette) / sizeof(kPalette[0]))];
}

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string render_xy_chart(const XYChart& chart) {
  const auto tops = stack_tops(chart.series);
  Range xr, yr;
  bool any_points = false;
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const Series& s = chart.series[i];
    for (size_t k = 0; k < s.x.size(); ++k) {
      if (chart.x_axis.log && !(s.x[k] > 0)) continue;
      xr.add(s.x[k]);
      const double y = s.style == SeriesStyle::stacked_area ? tops[i][k] : s.y[k];
      if (chart.y_axis.log && !(y > 0)) continue;
      yr.add(y);
      any_points = true;
    }
  }
  std::string svg;
  append_header(svg, chart.width, chart.height, chart.title);
  const double legend_height = append_legend(svg, chart.series, chart.width);
  const Frame f = make_frame(chart.width, chart.height, legend_height);
  const AxisScale xs = make_scale(chart.x_axis, xr, false);
  const AxisScale ys = make_scale(chart.y_axis, yr, true);
  append_y_axis(svg, f, ys, chart.y_axis);
  append_x_axis(svg, f, xs, chart.x_axis, chart.height);

  // Stacked areas first (topmost drawn first so lower layers stay visible), then lines.
  for (size_t i = chart.series.size(); i-- > 0;) {
    const Series& s = chart.series[i];
    if (s.style != SeriesStyle::stacked_area || s.x.empty()) continue;
    std::vector<double> base(s.x.size(), 0.0);
    for (size_t k = 0; k < s.x.size(); ++k) base[k] = tops[i][k] - s.y[k];
    std::string points = step_path_points(f, xs, ys, s.x, tops[i]);
    for (size_t k = s.x.size(); k-- > 0;) {
      points += fmt::format("{:.1f},{:.1f} ", f.px(xs, s.x[k]), f.py(ys, base[k]));
      if (k > 0) points += fmt::format("{:.1f},{:.1f} ", f.px(xs, s.x[k]), f.py(ys, base[k - 1]));
    }
    points.pop_back();
    svg += fmt::format("<polygon points=\"{}\" fill=\"{}\" fill-opacity=\"0.8\" stroke=\"none\"/>",
                       points, series_colour(i));
  }
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const Series& s = chart.series[i];
    if (s.x.empty()) continue;
    switch (s.style) {
      case SeriesStyle::stacked_area:
        break;
      case SeriesStyle::points:
        for (size_t k = 0; k < s.x.size(); ++k) {
          svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\"/>",
                             f.px(xs, s.x[k]), f.py(ys, s.y[k]), series_colour(i));
        }
        break;
      case SeriesStyle::line:
      case SeriesStyle::step: {
        std::string points;
        if (s.style == SeriesStyle::step) {
          points = step_path_points(f, xs, ys, s.x, s.y);
        } else {
          for (size_t k = 0; k < s.x.size(); ++k) {
            points += fmt::format("{:.1f},{:.1f} ", f.px(xs, s.x[k]), f.py(ys, s.y[k]));
          }
        }
        points.pop_back();
        svg += fmt::format(
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.8\" "
            "stroke-linejoin=\"round\"/>",
            points, series_colour(i));
        break;
      }
    }
  }
  append_frame_lines(svg, f);
  if (!any_points) {
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">no data</text>",
                       (f.left + f.right) / 2.0, (f.top + f.bottom) / 2.0);
  }
  svg += "</svg>";
  return svg;
}

std::string render_bar_chart(const BarChart& chart) {
  Range yr;
  for (const Series& s : chart.series) {
    for (double v : s.y) yr.add(v);
  }
  std::string svg;
  append_header(svg, chart.width, chart.height, chart.title);
  const double legend_height = append_legend(svg, chart.series, chart.width);
  const Frame f = make_frame(chart.width, chart.height, legend_height);
  const AxisScale ys = make_scale(chart.y_axis, yr, true);
  append_y_axis(svg, f, ys, chart.y_axis);

  const size_t num_categories = std::max<size_t>(chart.categories.size(), 1);
  const double group_width = (f.right - f.left) / static_cast<double>(num_categories);
  const double bar_width =
      group_width * 0.8 / static_cast<double>(std::max<size_t>(chart.series.size(), 1));
  const size_t max_chars = static_cast<size_t>(std::max(3.0, group_width / kCharWidth));
  for (size_t c = 0; c < chart.categories.size(); ++c) {
    const double group_left = f.left + group_width * static_cast<double>(c) + group_width * 0.1;
    for (size_t i = 0; i < chart.series.size(); ++i) {
      if (c >= chart.series[i].y.size()) continue;
      const double v = chart.series[i].y[c];
      const double top = f.py(ys, std::max(v, 0.0));
      const double zero = f.py(ys, std::max(ys.min, 0.0));
      svg += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"/>",
          group_left + bar_width * static_cast<double>(i), top, std::max(bar_width - 1.0, 1.0),
          std::max(zero - top, 0.0), series_colour(i));
    }
    std::string label = chart.categories[c];
    if (label.size() > max_chars) label = label.substr(0, max_chars - 1) + "~";
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>",
                       f.left + group_width * (static_cast<double>(c) + 0.5), f.bottom + 16.0,
                       xml_escape(label));
  }
  append_frame_lines(svg, f);
  svg += "</svg>";
  return svg;
}

}  // namespace tidal::reports
