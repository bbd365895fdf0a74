// The line of a request-metric error against the step-total error over matrix rounds.
#include "validate/drift_fit.h"

#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace tidal::validate {
namespace {

// Points on error = -1 + 3 x step total: the line is found exactly, whatever their order.
TEST(DriftFit, ExactLineThroughTheRounds) {
  const std::vector<double> step_totals{-2.0, 0.5, 1.0, -1.0};
  std::vector<double> errors;
  for (const double x : step_totals) errors.push_back(-1.0 + 3.0 * x);
  const std::optional<DriftLine> line = fit_drift_line(step_totals, errors);
  ASSERT_TRUE(line.has_value());
  EXPECT_NEAR(line->at_matched_pct, -1.0, 1e-12);
  EXPECT_NEAR(line->per_step_total_pct, 3.0, 1e-12);
}

// Scattered points: the least-squares line (by hand: mean x 0, mean y 1, sxy 4, sxx 2).
TEST(DriftFit, LeastSquaresThroughScatteredRounds) {
  const std::optional<DriftLine> line =
      fit_drift_line(std::vector<double>{-1.0, 0.0, 1.0}, std::vector<double>{-2.0, 3.0, 2.0});
  ASSERT_TRUE(line.has_value());
  EXPECT_NEAR(line->at_matched_pct, 1.0, 1e-12);
  EXPECT_NEAR(line->per_step_total_pct, 2.0, 1e-12);
}

TEST(DriftFit, NoLineFromTooFewOrTooCloseRounds) {
  EXPECT_FALSE(fit_drift_line(std::vector<double>{-1.0, 1.0}, std::vector<double>{0.0, 1.0}));
  // Step totals 0.4 points apart: the value at 0 would be an extrapolation from one point.
  EXPECT_FALSE(
      fit_drift_line(std::vector<double>{-1.0, -0.8, -0.6}, std::vector<double>{-3.0, -2.0, -1.0}));
  EXPECT_TRUE(
      fit_drift_line(std::vector<double>{-1.0, -0.8, -0.5}, std::vector<double>{-3.0, -2.0, -1.0}));
  EXPECT_THROW(fit_drift_line(std::vector<double>{1.0, 2.0, 3.0}, std::vector<double>{1.0, 2.0}),
               std::logic_error);
}

}  // namespace
}  // namespace tidal::validate
