#include "ui/plot/axis_view.h"

#include <algorithm>

namespace tidal::ui::plot {
namespace {

constexpr double kMaxZoom = 1e4;  // the narrowest view is the limits' span over this

}  // namespace

void AxisView::set_limits(const AxisRange& limits) {
  if (limits == limits_) return;
  limits_ = limits;
  if (!(limits_.span() > 0.0)) limits_.max = limits_.min + 1.0;
  view_ = limits_;
}

void AxisView::follow_limits(const AxisRange& limits) {
  const bool was_zoomed = zoomed();
  limits_ = limits;
  if (!(limits_.span() > 0.0)) limits_.max = limits_.min + 1.0;
  if (was_zoomed) {
    clamp();
  } else {
    view_ = limits_;
  }
}

void AxisView::zoom(double anchor, double factor) {
  const double span = view_.span();
  const double new_span = std::clamp(span * factor, limits_.span() / kMaxZoom, limits_.span());
  const double anchor_share = span > 0.0 ? (anchor - view_.min) / span : 0.5;
  view_.min = anchor - anchor_share * new_span;
  view_.max = view_.min + new_span;
  clamp();
}

void AxisView::pan(double delta) {
  view_.min += delta;
  view_.max += delta;
  clamp();
}

void AxisView::clamp() {
  const double span = std::min(view_.span(), limits_.span());
  if (view_.min < limits_.min) view_.min = limits_.min;
  if (view_.min + span > limits_.max) view_.min = limits_.max - span;
  view_.max = view_.min + span;
}

}  // namespace tidal::ui::plot
