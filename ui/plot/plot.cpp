#include "ui/plot/plot.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ui/plot/nice_ticks.h"
#include "ui/plot/plot_frame.h"

namespace tidal::ui::plot {
namespace {

constexpr int kMaxXTicks = 8;
constexpr int kMaxYTicks = 5;
constexpr float kTickLength = 4.0f;
constexpr double kWheelZoomStep = 0.85;  // view span factor per wheel notch

ImU32 with_alpha(ImU32 color, float alpha) {
  ImVec4 c = ImGui::ColorConvertU32ToFloat4(color);
  c.w *= alpha;
  return ImGui::ColorConvertFloat4ToU32(c);
}

AxisRange data_x_range(std::span<const Series> series) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const Series& s : series) {
    if (s.x.empty()) continue;
    lo = std::min(lo, s.x.front());
    hi = std::max(hi, s.x_end.empty() ? s.x.back() : s.x_end.back());
  }
  if (!(hi > lo)) return {std::isfinite(lo) ? lo : 0.0, std::isfinite(lo) ? lo + 1.0 : 1.0};
  return {lo, hi};
}

// A small colour square followed by text, laid out inline.
void swatch_label(ImU32 color, const std::string& text) {
  const float h = ImGui::GetTextLineHeight();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + h * 0.2f),
                                            ImVec2(p.x + h * 0.6f, p.y + h * 0.8f), color, 2.0f);
  ImGui::Dummy(ImVec2(h * 0.75f, h));
  ImGui::SameLine(0.0f, 2.0f);
  ImGui::TextUnformatted(text.c_str());
}

void draw_title_and_legend(const PlotSpec& spec, std::span<const Series> series) {
  ImGui::TextUnformatted(spec.title.c_str());
  if (!spec.note.empty()) {
    ImGui::SameLine();
    ImGui::PushTextWrapPos(0.0f);  // a long note wraps at the window's edge
    ImGui::TextDisabled("%s", spec.note.c_str());
    ImGui::PopTextWrapPos();
  }
  // Legend entries follow on the same line while they fit, then wrap.
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  for (const Series& s : series) {
    const float h = ImGui::GetTextLineHeight();
    const float width = h * 0.75f + 2.0f + ImGui::CalcTextSize(s.label.c_str()).x;
    ImGui::SameLine(0.0f, 14.0f);
    if (ImGui::GetCursorScreenPos().x + width > right) ImGui::NewLine();
    swatch_label(s.color, s.label);
  }
}

// The value a series shows at x for the read-out: stacked areas and lines alike show the
// sample in force at x (the last at or before it).
double value_at(const Series& s, double x) {
  const int i = sample_index_at(s.x, x);
  if (i < 0) return std::numeric_limits<double>::quiet_NaN();
  if (!s.x_end.empty() && x >= s.x_end[static_cast<size_t>(i)]) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return s.y[static_cast<size_t>(i)];
}

void draw_readout(const PlotSpec& spec, std::span<const Series> series, double x) {
  ImGui::BeginTooltip();
  ImGui::TextDisabled("%s", format_value(x, spec.x_unit).c_str());
  for (const Series& s : series) {
    swatch_label(s.color, s.label + ": " + format_value(value_at(s, x), spec.y_unit));
  }
  ImGui::EndTooltip();
}

void handle_zoom_and_pan(AxisView& view, const PlotFrame& frame) {
  const ImGuiIO& io = ImGui::GetIO();
  if (ImGui::IsItemHovered()) {
    if (io.MouseWheel != 0.0f) {
      view.zoom(frame.data_x(io.MousePos.x), std::pow(kWheelZoomStep, io.MouseWheel));
    }
    if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) view.reset();
  }
  if (ImGui::IsItemActive() && io.MouseDelta.x != 0.0f) {
    view.pan(-static_cast<double>(io.MouseDelta.x) * frame.x.span() /
             static_cast<double>(frame.max.x - frame.min.x));
  }
}

}  // namespace

int sample_index_at(std::span<const double> xs, double x) {
  const auto it = std::upper_bound(xs.begin(), xs.end(), x);
  return static_cast<int>(it - xs.begin()) - 1;
}

void draw_plot(const char* id, const PlotSpec& spec, std::span<const Series> series, ImVec2 size) {
  ImGui::PushID(id);
  ImGui::BeginGroup();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  draw_title_and_legend(spec, series);
  const float line_h = ImGui::GetTextLineHeight();
  const ImVec2 area_top = ImGui::GetCursorScreenPos();

  // Ranges: x from the shared view or the data; y from zero to a nice top over what shows.
  const AxisRange x = spec.x_view ? spec.x_view->view() : data_x_range(series);
  double y_limit = 1.0;
  const double visible_top = visible_y_max(series, x);
  if (spec.y_max) {
    y_limit = *spec.y_max;
  } else if (visible_top > 0.0) {
    const double headroom = visible_top * 1.05;
    const double step = nice_step(headroom, kMaxYTicks);
    y_limit = step * std::ceil(headroom / step - 1e-9);
  }
  const DisplayScale y_scale = display_scale(spec.y_unit, y_limit);
  const DisplayScale x_scale =
      display_scale(spec.x_unit, std::max(std::fabs(x.min), std::fabs(x.max)));
  const Ticks y_shown = nice_ticks(0.0, y_limit * y_scale.factor, kMaxYTicks);
  const Ticks x_shown = nice_ticks(x.min * x_scale.factor, x.max * x_scale.factor, kMaxXTicks);

  std::vector<std::string> y_labels;  // [num y ticks]
  // At least the width of "0,000", so plots stacked in a column line up.
  float label_w = ImGui::CalcTextSize("0,000").x;
  for (const double v : y_shown.values) {
    y_labels.push_back(format_tick(v, tick_decimals(y_shown.step)));
    label_w = std::max(label_w, ImGui::CalcTextSize(y_labels.back().c_str()).x);
  }
  PlotFrame frame;
  frame.min = ImVec2(area_top.x + label_w + kTickLength + 6.0f, area_top.y + line_h * 0.6f);
  frame.max = ImVec2(origin.x + size.x - 8.0f, origin.y + size.y - line_h * 2.0f - 6.0f);
  frame.x = x;
  frame.y = {0.0, y_limit};
  if (frame.max.y - frame.min.y < 20.0f || frame.max.x - frame.min.x < 40.0f) {
    ImGui::Dummy(ImVec2(size.x, std::max(0.0f, size.y - (area_top.y - origin.y))));
    ImGui::EndGroup();
    ImGui::PopID();
    return;
  }

  ImDrawList& draw = *ImGui::GetWindowDrawList();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 muted = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const ImU32 grid = with_alpha(ImGui::GetColorU32(ImGuiCol_Border), 0.55f);
  draw.AddRectFilled(frame.min, frame.max, ImGui::GetColorU32(ImGuiCol_FrameBg), 3.0f);

  for (size_t i = 0; i < y_shown.values.size(); ++i) {
    const float py = frame.screen_y(y_shown.values[i] / y_scale.factor);
    draw.AddLine(ImVec2(frame.min.x, py), ImVec2(frame.max.x, py), grid);
    const ImVec2 ts = ImGui::CalcTextSize(y_labels[i].c_str());
    draw.AddText(ImVec2(frame.min.x - kTickLength - 4.0f - ts.x, py - ts.y * 0.5f), muted,
                 y_labels[i].c_str());
  }
  for (const double v : x_shown.values) {
    const float px = frame.screen_x(v / x_scale.factor);
    draw.AddLine(ImVec2(px, frame.min.y), ImVec2(px, frame.max.y), grid);
    draw.AddLine(ImVec2(px, frame.max.y), ImVec2(px, frame.max.y + kTickLength), muted);
    const std::string label = format_tick(v, tick_decimals(x_shown.step));
    const float w = ImGui::CalcTextSize(label.c_str()).x;
    draw.AddText(ImVec2(px - w * 0.5f, frame.max.y + kTickLength + 1.0f), muted, label.c_str());
  }
  const std::string x_caption = axis_caption(spec.x_unit, x_scale);
  const float x_caption_w = ImGui::CalcTextSize(x_caption.c_str()).x;
  draw.AddText(ImVec2(frame.max.x - x_caption_w, frame.max.y + line_h + 4.0f), muted,
               x_caption.c_str());
  const std::string y_caption = axis_caption(spec.y_unit, y_scale);
  if (!y_caption.empty()) {
    draw.AddText(ImVec2(frame.min.x + 4.0f, frame.min.y + 2.0f), muted, y_caption.c_str());
  }
  if (spec.x_view != nullptr && spec.x_view->zoomed()) {
    const char* hint = "zoomed: double-click resets";
    draw.AddText(ImVec2(origin.x, frame.max.y + line_h + 4.0f), muted, hint);
  }

  draw.PushClipRect(frame.min, frame.max, true);
  draw_series(draw, frame, series);
  draw.PopClipRect();
  draw.AddRect(frame.min, frame.max, grid, 3.0f);

  ImGui::SetCursorScreenPos(frame.min);
  ImGui::InvisibleButton("area", ImVec2(frame.max.x - frame.min.x, frame.max.y - frame.min.y));
  if (spec.x_view != nullptr) handle_zoom_and_pan(*spec.x_view, frame);
  if (ImGui::IsItemHovered()) {
    const float mx = ImGui::GetIO().MousePos.x;
    draw.AddLine(ImVec2(mx, frame.min.y), ImVec2(mx, frame.max.y), with_alpha(text, 0.5f));
    draw_readout(spec, series, frame.data_x(mx));
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + size.y));
  ImGui::Dummy(ImVec2(size.x, 0.0f));
  ImGui::EndGroup();
  ImGui::PopID();
}

}  // namespace tidal::ui::plot
