#include "validate/drift_fit.h"

#include <algorithm>
#include <stdexcept>

namespace tidal::validate {

std::optional<DriftLine> fit_drift_line(std::span<const double> step_total_error_pct,
                                        std::span<const double> error_pct) {
  if (step_total_error_pct.size() != error_pct.size()) {
    throw std::logic_error("fit_drift_line: one error per round on both sides");
  }
  const size_t n = step_total_error_pct.size();
  if (n < kMinDriftRounds) return std::nullopt;
  const auto [lowest, highest] =
      std::minmax_element(step_total_error_pct.begin(), step_total_error_pct.end());
  if (*highest - *lowest < kMinStepTotalSpreadPct) return std::nullopt;
  double mean_x = 0.0;
  double mean_y = 0.0;
  for (size_t i = 0; i < n; ++i) {
    mean_x += step_total_error_pct[i];
    mean_y += error_pct[i];
  }
  mean_x /= static_cast<double>(n);
  mean_y /= static_cast<double>(n);
  double sxx = 0.0;
  double sxy = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const double dx = step_total_error_pct[i] - mean_x;
    sxx += dx * dx;
    sxy += dx * (error_pct[i] - mean_y);
  }
  DriftLine line;
  line.per_step_total_pct = sxy / sxx;
  line.at_matched_pct = mean_y - line.per_step_total_pct * mean_x;
  return line;
}

}  // namespace tidal::validate
