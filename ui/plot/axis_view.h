// The visible part of a plot's time axis, zoomed with the mouse wheel and panned by dragging.
// Plain arithmetic, no ImGui, so it can be tested; the plot widget feeds it mouse input.
#pragma once

namespace tidal::ui::plot {

struct AxisRange {
  double min = 0.0;
  double max = 1.0;

  double span() const { return max - min; }
  bool operator==(const AxisRange&) const = default;
};

// One zoomable axis: `limits` is the data's extent, `view` the part shown. Every plot of a run
// shares one AxisView, so zooming one time axis zooms them all.
class AxisView {
 public:
  // Fits the view to new limits when the limits change (a new run), keeping a zoom otherwise.
  void set_limits(const AxisRange& limits);
  // Grows the limits as a live run goes: a view showing everything keeps showing everything,
  // a zoomed view stays where it is.
  void follow_limits(const AxisRange& limits);

  const AxisRange& view() const { return view_; }
  const AxisRange& limits() const { return limits_; }
  bool zoomed() const { return view_ != limits_; }

  // Scales the view's span by `factor` (< 1 zooms in) keeping `anchor` where it is on screen.
  // The span stays within [limits span / 10^4, limits span] and the view inside the limits.
  void zoom(double anchor, double factor);
  // Shifts the view by `delta` (axis units), stopping at the limits.
  void pan(double delta);
  // Shows the whole data range again.
  void reset() { view_ = limits_; }

 private:
  void clamp();

  AxisRange limits_;
  AxisRange view_;
};

}  // namespace tidal::ui::plot
