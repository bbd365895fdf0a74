// The autoscaling policies and their registry. Each policy turns an observation into a raw
// desired replica count; the ScalingGovernor applies bounds, delays and the scale-down window.
#include "sim/fleet/autoscaler.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <stdexcept>
#include <vector>

#include "sim/fleet/scaling_governor.h"
#include "sim/fleet/spec_reading.h"

namespace tidal::fleet {

int32_t FleetObservation::num_starting() const {
  return num(LifecycleState::requested) + num(LifecycleState::provisioning) +
         num(LifecycleState::loading);
}

int32_t FleetObservation::num_provisioned() const {
  return num_starting() + num(LifecycleState::warm);
}

namespace {

int64_t ceil_div(double numerator, double denominator) {
  return static_cast<int64_t>(std::ceil(numerator / denominator));
}

GovernorLimits governor_limits(const AutoscalerSpec& spec) {
  return GovernorLimits{spec.min_replicas, spec.max_replicas, seconds_to_ns(spec.scale_up_delay_s),
                        seconds_to_ns(spec.scale_down_delay_s),
                        seconds_to_ns(spec.scale_down_window_s)};
}

// Keeps the pool at its initial size.
class FixedAutoscaler final : public Autoscaler {
 public:
  explicit FixedAutoscaler(int32_t num_replicas) : num_replicas_(num_replicas) {}
  Decision decide(const FleetObservation&) override { return Decision{num_replicas_}; }

 private:
  int32_t num_replicas_;
};

// A policy that states demand as a raw count and lets the governor stabilize it.
class GovernedAutoscaler : public Autoscaler {
 public:
  GovernedAutoscaler(const AutoscalerSpec& spec, int32_t initial_replicas)
      : governor_(governor_limits(spec), initial_replicas) {}

  Decision decide(const FleetObservation& observation) final {
    if (observation.time_ns < last_time_ns_) {
      throw std::logic_error("Autoscaler::decide: time went backwards");
    }
    last_time_ns_ = observation.time_ns;
    return Decision{governor_.update(observation.time_ns, raw_desired(observation))};
  }

 protected:
  virtual int64_t raw_desired(const FleetObservation& observation) = 0;

 private:
  ScalingGovernor governor_;
  int64_t last_time_ns_ = 0;
};

// Enough replicas that each holds target_inputs outstanding requests, plus warm spares.
// Demand does not depend on how many replicas exist, so replicas still loading never cause
// extra requests.
class TargetConcurrencyAutoscaler final : public GovernedAutoscaler {
 public:
  TargetConcurrencyAutoscaler(const AutoscalerSpec& spec, int32_t initial_replicas)
      : GovernedAutoscaler(spec, initial_replicas),
        target_inputs_(spec.target_inputs),
        buffer_replicas_(spec.buffer_replicas) {}

 protected:
  int64_t raw_desired(const FleetObservation& observation) override {
    return ceil_div(static_cast<double>(observation.num_outstanding()), target_inputs_) +
           buffer_replicas_;
  }

 private:
  double target_inputs_;
  int32_t buffer_replicas_;
};

// Step scaling on waiting requests: up to waiting / scale_up_waiting_per_replica replicas when
// the queue per provisioned replica (starting ones included) exceeds that; one replica fewer
// when nothing waits and the others could carry the running requests.
class QueueDepthAutoscaler final : public GovernedAutoscaler {
 public:
  QueueDepthAutoscaler(const AutoscalerSpec& spec, int32_t initial_replicas)
      : GovernedAutoscaler(spec, initial_replicas),
        up_waiting_(spec.scale_up_waiting_per_replica),
        down_running_(spec.scale_down_running_per_replica) {}

 protected:
  int64_t raw_desired(const FleetObservation& observation) override {
    const int64_t provisioned = observation.num_provisioned();
    const auto waiting = static_cast<double>(observation.num_waiting());
    if (provisioned == 0) {
      return observation.num_outstanding() > 0
                 ? std::max<int64_t>(1, ceil_div(waiting, up_waiting_))
                 : 0;
    }
    if (waiting > up_waiting_ * static_cast<double>(provisioned)) {
      return ceil_div(waiting, up_waiting_);
    }
    if (waiting == 0 && static_cast<double>(observation.num_running) <=
                            down_running_ * static_cast<double>(provisioned - 1)) {
      return provisioned - 1;
    }
    return provisioned;
  }

 private:
  double up_waiting_;
  double down_running_;
};

// Feedback on the p90 TTFT of the last latency_window_s (nearest rank). Above target: grow the
// warm replicas by the ratio (at most max_scale_up_factor, at least one replica), unless
// replicas are already starting; below scale_down_ttft_ratio * target: one replica fewer.
class LatencySloAutoscaler final : public GovernedAutoscaler {
 public:
  LatencySloAutoscaler(const AutoscalerSpec& spec, int32_t initial_replicas)
      : GovernedAutoscaler(spec, initial_replicas),
        target_s_(spec.target_ttft_p90_s),
        window_ns_(seconds_to_ns(spec.latency_window_s)),
        down_ratio_(spec.scale_down_ttft_ratio),
        max_factor_(spec.max_scale_up_factor) {}

 protected:
  int64_t raw_desired(const FleetObservation& observation) override {
    for (double ttft_s : observation.new_ttft_s) {
      recent_.push_back(Sample{observation.time_ns, ttft_s});
    }
    while (!recent_.empty() && recent_.front().time_ns < observation.time_ns - window_ns_) {
      recent_.pop_front();
    }
    const int64_t provisioned = observation.num_provisioned();
    if (recent_.empty()) {
      if (observation.num_outstanding() == 0) return provisioned - 1;
      return std::max<int64_t>(provisioned, 1);
    }
    const double ratio = p90_s() / target_s_;
    if (ratio > 1) {
      if (observation.num_starting() > 0) return provisioned;
      const double num_warm = observation.num(LifecycleState::warm);
      return std::max(provisioned + 1, ceil_div(num_warm * std::min(ratio, max_factor_), 1.0));
    }
    if (ratio < down_ratio_) return provisioned - 1;
    return provisioned;
  }

 private:
  struct Sample {
    int64_t time_ns;
    double ttft_s;
  };

  double p90_s() const {
    std::vector<double> values;  // [num_recent]
    values.reserve(recent_.size());
    for (const Sample& sample : recent_) values.push_back(sample.ttft_s);
    const size_t rank = static_cast<size_t>(std::ceil(0.9 * static_cast<double>(values.size())));
    const auto nth = values.begin() + static_cast<std::ptrdiff_t>(rank - 1);
    std::nth_element(values.begin(), nth, values.end());
    return *nth;
  }

  double target_s_;
  int64_t window_ns_;
  double down_ratio_;
  double max_factor_;
  std::deque<Sample> recent_;  // [num_in_window] TTFT samples by arrival at the autoscaler
};

// A daily plan: the count of the last plan point at or before the clock time of
// (now + lead_s), wrapping around midnight.
class ScheduledAutoscaler final : public Autoscaler {
 public:
  explicit ScheduledAutoscaler(const AutoscalerSpec& spec)
      : start_ns_(std::llround(spec.start_hour * kNsPerHour)),
        lead_ns_(seconds_to_ns(spec.lead_s)) {
    for (const SchedulePoint& point : spec.schedule) {
      points_.push_back(Point{std::llround(point.hour * kNsPerHour), point.num_replicas});
    }
  }

  Decision decide(const FleetObservation& observation) override {
    const int64_t clock_ns = observation.time_ns + lead_ns_ + start_ns_;
    const int64_t time_of_day_ns = ((clock_ns % kNsPerDay) + kNsPerDay) % kNsPerDay;
    int32_t num_replicas = points_.back().num_replicas;  // before the first point: yesterday's
    for (const Point& point : points_) {
      if (point.time_of_day_ns <= time_of_day_ns) num_replicas = point.num_replicas;
    }
    return Decision{num_replicas};
  }

 private:
  static constexpr int64_t kNsPerHour = 3'600'000'000'000;
  static constexpr int64_t kNsPerDay = 24 * kNsPerHour;
  struct Point {
    int64_t time_of_day_ns;
    int32_t num_replicas;
  };
  std::vector<Point> points_;  // [num_points] times strictly increasing
  int64_t start_ns_;
  int64_t lead_ns_;
};

}  // namespace

std::unique_ptr<Autoscaler> make_autoscaler(const AutoscalerSpec& spec, int32_t initial_replicas) {
  if (spec.policy == "fixed") return std::make_unique<FixedAutoscaler>(initial_replicas);
  if (spec.policy == "target_concurrency") {
    return std::make_unique<TargetConcurrencyAutoscaler>(spec, initial_replicas);
  }
  if (spec.policy == "queue_depth") {
    return std::make_unique<QueueDepthAutoscaler>(spec, initial_replicas);
  }
  if (spec.policy == "latency_slo") {
    return std::make_unique<LatencySloAutoscaler>(spec, initial_replicas);
  }
  if (spec.policy == "scheduled" && !spec.schedule.empty()) {
    return std::make_unique<ScheduledAutoscaler>(spec);
  }
  throw std::logic_error("make_autoscaler: unknown policy or empty schedule: " + spec.policy);
}

}  // namespace tidal::fleet
