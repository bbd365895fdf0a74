// The stabilization every demand-driven autoscaler shares (mechanism; the policies only say
// how many replicas the current demand needs). Given a raw desired count per evaluation:
//   bounded   = clamp(raw, min_replicas, max_replicas)
//   up        = min of bounded over [now - scale_up_delay, now]     (demand sustained that long)
//   down      = max of bounded over [now - scale_down_window, now]  (the window's peak)
//   target    = up                 if up > target
//             = down               if down < target and now - last scale-up >= scale_down_delay
// Before the first evaluation the desired count counts as the initial target, so a scale-up
// right at the start also waits scale_up_delay.
#pragma once

#include <cstdint>
#include <optional>

#include "sim/fleet/sliding_extreme.h"

namespace tidal::fleet {

struct GovernorLimits {
  int32_t min_replicas = 0;
  int32_t max_replicas = 0;
  int64_t scale_up_delay_ns = 0;
  int64_t scale_down_delay_ns = 0;
  int64_t scale_down_window_ns = 0;
};

class ScalingGovernor {
 public:
  ScalingGovernor(const GovernorLimits& limits, int32_t initial_target);

  // The new target after seeing `raw_desired` at `now_ns` (never decreasing between calls).
  int32_t update(int64_t now_ns, int64_t raw_desired);

 private:
  GovernorLimits limits_;
  int32_t target_;
  bool started_ = false;
  std::optional<int64_t> last_scale_up_ns_;
  SlidingMin sustained_;  // bounded desired counts, for scale-up
  SlidingMax peak_;       // bounded desired counts, for scale-down
};

}  // namespace tidal::fleet
