// How a case's request errors follow the step-time model's drift over matrix rounds. Each round
// profiles the machine anew, and the profile's speed differs from the replay's by a few percent
// (the "step total" error: the model's total over the engine's own steps against their measured
// total). Where requests wait on each other, a request-metric error moves several times as far
// as that; a least-squares line of the metric's error against the step-total error over the
// rounds separates the two: its slope (how many % of error one % of step-total error brings)
// and its value at matched step totals (the simulator's bias with the timing drift taken out).
#pragma once

#include <optional>
#include <span>

namespace tidal::validate {

struct DriftLine {
  double at_matched_pct = 0.0;      // the line's value at a step-total error of 0
  double per_step_total_pct = 0.0;  // its slope
};

// The rounds' step-total errors must spread at least this far (max - min, percentage points)
// for a line: closer together, its value at 0 is an extrapolation from a point.
inline constexpr double kMinStepTotalSpreadPct = 0.5;
inline constexpr size_t kMinDriftRounds = 3;

// The least-squares line error_pct = a + b x step_total_error_pct over the rounds (equal
// lengths); none with fewer than kMinDriftRounds rounds or a spread below kMinStepTotalSpreadPct.
std::optional<DriftLine> fit_drift_line(std::span<const double> step_total_error_pct,
                                        std::span<const double> error_pct);

}  // namespace tidal::validate
