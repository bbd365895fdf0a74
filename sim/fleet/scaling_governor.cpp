#include "sim/fleet/scaling_governor.h"

#include <algorithm>

namespace tidal::fleet {

ScalingGovernor::ScalingGovernor(const GovernorLimits& limits, int32_t initial_target)
    : limits_(limits), target_(initial_target) {}

int32_t ScalingGovernor::update(int64_t now_ns, int64_t raw_desired) {
  if (!started_) {
    sustained_.push(now_ns, target_);
    peak_.push(now_ns, target_);
    started_ = true;
  }
  const int64_t bounded =
      std::clamp<int64_t>(raw_desired, limits_.min_replicas, limits_.max_replicas);
  sustained_.push(now_ns, bounded);
  peak_.push(now_ns, bounded);
  const int64_t up = sustained_.query(now_ns, limits_.scale_up_delay_ns);
  const int64_t down = peak_.query(now_ns, limits_.scale_down_window_ns);
  if (up > target_) {
    target_ = static_cast<int32_t>(up);
    last_scale_up_ns_ = now_ns;
  } else if (down < target_ &&
             (!last_scale_up_ns_ || now_ns - *last_scale_up_ns_ >= limits_.scale_down_delay_ns)) {
    target_ = static_cast<int32_t>(down);
  }
  target_ = std::clamp(target_, limits_.min_replicas, limits_.max_replicas);
  return target_;
}

}  // namespace tidal::fleet
