// Matrix rounds: every error column summarized as mean, lowest and highest over the rounds,
// targets judged on the means, per-target counts of the rounds that held, and the markdown.
#include "validate/matrix_rounds.h"

#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/input_error.h"

namespace tidal::validate {
namespace {

using Json = nlohmann::ordered_json;

// One matrix.json with a single case whose request-mean errors are `ttft`, `tpot` and `e2e`, and
// whose model predicted `step_predicted_s` in all for 2 s of measured steps.
Json round_with(double ttft, double tpot, double e2e, double step_median, bool means_held,
                const Json& noise_ttft, double step_predicted_s = 2.0) {
  const Json row = {{"case", "poisson"},
                    {"folder", "poisson"},
                    {"load", 0.5},
                    {"num_requests", 100},
                    {"step_median_abs_error_pct", step_median},
                    {"step_p90_abs_error_pct", 6.0},
                    {"ttft_mean_error_pct", ttft},
                    {"ttft_p99_error_pct", 8.0},
                    {"tpot_mean_error_pct", tpot},
                    {"tpot_p99_error_pct", -12.0},
                    {"itl_mean_error_pct", 0.0},
                    {"e2e_mean_error_pct", e2e},
                    {"e2e_p99_error_pct", 1.0},
                    {"noise_ttft_mean_pct", noise_ttft},
                    {"noise_e2e_mean_pct", 1.0},
                    {"step_measured_total_s", 2.0},
                    {"step_predicted_total_s", step_predicted_s},
                    {"targets",
                     {{"step_median", step_median < 3.0},
                      {"step_p90", true},
                      {"request_means", means_held},
                      {"request_p99", false}}}};
  return {{"kind", "tidal-validation-matrix"}, {"name", "m"}, {"cases", Json::array({row})}};
}

TEST(MatrixRounds, ColumnsAreSummarizedAndTargetsJudgedOnTheMeans) {
  // TTFT +7 and -5: each round misses the 5% target or sits on it, their mean (+1) holds.
  const std::vector<Json> rounds{round_with(7.0, 1.0, 2.0, 2.0, false, -2.0),
                                 round_with(-5.0, 3.0, 4.0, 3.5, true, 4.0)};
  const Json j = rounds_json(rounds);
  EXPECT_EQ(j["kind"], "tidal-validation-matrix-rounds");
  EXPECT_EQ(j["num_rounds"], 2);
  ASSERT_EQ(j["cases"].size(), 1u);
  const Json& c = j["cases"][0];
  EXPECT_EQ(c["case"], "poisson");
  EXPECT_DOUBLE_EQ(c["ttft_mean_error_pct"]["mean"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(c["ttft_mean_error_pct"]["min"].get<double>(), -5.0);
  EXPECT_DOUBLE_EQ(c["ttft_mean_error_pct"]["max"].get<double>(), 7.0);
  EXPECT_DOUBLE_EQ(c["step_median_abs_error_pct"]["mean"].get<double>(), 2.75);
  EXPECT_DOUBLE_EQ(c["noise_ttft_mean_pct"]["mean"].get<double>(), 1.0);
  EXPECT_EQ(c["targets"]["step_median"], true);
  EXPECT_EQ(c["targets"]["step_p90"], true);
  EXPECT_EQ(c["targets"]["request_means"], true);
  EXPECT_EQ(c["targets"]["request_p99"], false);  // TPOT p99 -12 in both rounds
  EXPECT_EQ(c["rounds_held"]["step_median"], 1);
  EXPECT_EQ(c["rounds_held"]["step_p90"], 2);
  EXPECT_EQ(c["rounds_held"]["request_means"], 1);
  EXPECT_EQ(c["rounds_held"]["request_p99"], 0);

  const std::string md = rounds_markdown(j, rounds);
  EXPECT_NE(md.find("| poisson | 0.50 | 2.8% | 6.0% | +1.0 (-5.0..+7.0) | +2.0 (+1.0..+3.0) | "
                    "+3.0 (+2.0..+4.0) | +8.0 (+8.0..+8.0) | -12.0 (-12.0..-12.0) | "
                    "+1.0 (+1.0..+1.0) | +1.0 (-2.0..+4.0) / +1.0 (+1.0..+1.0) | "
                    "1 / 2 / 1 / 0 of 2 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("Targets held by the means over 2 rounds: step median < 3% on 1 of 1; "),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("Round 1: step median < 3% on 1 of 1; step p90 < 8% on 1 of 1; TTFT/TPOT/E2E "
                    "means within 5% on 0 of 1 (misses: poisson);"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("Round 2: step median < 3% on 0 of 1 (misses: poisson);"), std::string::npos)
      << md;
}

// Three rounds whose step totals were predicted -2%, 0% and +1%, with TPOT errors on
// -1 + 3 x that and TTFT and E2E errors of 4, 5, 6: the lines through the rounds, and the table
// of request means at matched step totals.
TEST(MatrixRounds, RequestMeansAtMatchedStepTotals) {
  const std::vector<Json> rounds{round_with(4.0, -7.0, 4.0, 1.0, true, 1.0, 1.96),
                                 round_with(5.0, -1.0, 5.0, 1.0, true, 1.0, 2.0),
                                 round_with(6.0, 2.0, 6.0, 1.0, false, 1.0, 2.02)};
  const Json j = rounds_json(rounds);
  const Json& c = j["cases"][0];
  EXPECT_NEAR(c["step_total_error_pct"]["mean"].get<double>(), -1.0 / 3.0, 1e-9);
  EXPECT_NEAR(c["step_total_error_pct"]["min"].get<double>(), -2.0, 1e-9);
  EXPECT_NEAR(c["step_total_error_pct"]["max"].get<double>(), 1.0, 1e-9);
  const Json& tpot = c["at_matched_step_totals"]["tpot_mean_error_pct"];
  EXPECT_NEAR(tpot["at_matched_pct"].get<double>(), -1.0, 1e-9);
  EXPECT_NEAR(tpot["per_step_total_pct"].get<double>(), 3.0, 1e-9);
  // TTFT 4, 5, 6 at step totals -2, 0, 1: mean x -1/3, mean y 5, sxx 14/3, sxy 3: slope 9/14.
  const Json& ttft = c["at_matched_step_totals"]["ttft_mean_error_pct"];
  EXPECT_NEAR(ttft["per_step_total_pct"].get<double>(), 9.0 / 14.0, 1e-9);
  EXPECT_NEAR(ttft["at_matched_pct"].get<double>(), 5.0 + 9.0 / 14.0 / 3.0, 1e-9);

  const std::string md = rounds_markdown(j, rounds);
  EXPECT_NE(md.find("| poisson | -0.3 (-2.0..+1.0) | +5.2 | -1.0 | +5.2 | 3.00 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("TTFT/TPOT/E2E means within 5% at matched step totals on 0 of 1 (misses: "
                    "poisson)"),
            std::string::npos)
      << md;
  // Two rounds: no line.
  const Json two = rounds_json({rounds[0], rounds[1]});
  EXPECT_TRUE(two["cases"][0]["at_matched_step_totals"].is_null());
  EXPECT_NE(rounds_markdown(two, {rounds[0], rounds[1]}).find("| n/a | n/a | n/a | n/a |"),
            std::string::npos);
}

TEST(MatrixRounds, AColumnMissingInARoundIsNull) {
  const Json j = rounds_json(
      {round_with(1.0, 1.0, 1.0, 1.0, true, 2.0), round_with(1.0, 1.0, 1.0, 1.0, true, nullptr)});
  EXPECT_TRUE(j["cases"][0]["noise_ttft_mean_pct"].is_null());
  EXPECT_NE(rounds_markdown(j, {}).find("| n/a / +1.0 (+1.0..+1.0) |"), std::string::npos);
}

TEST(MatrixRounds, RoundsOfDifferentCasesAreALogicError) {
  Json other = round_with(1.0, 1.0, 1.0, 1.0, true, 1.0);
  other["cases"][0]["case"] = "bursty";
  EXPECT_THROW(rounds_json({round_with(1.0, 1.0, 1.0, 1.0, true, 1.0), other}), std::logic_error);
  EXPECT_THROW(rounds_json({}), std::logic_error);
}

TEST(MatrixRounds, FewerThanOneRoundIsAnInputErrorBeforeAnythingRuns) {
  try {
    run_matrix_rounds(Matrix{}, "/nonexistent/never-written", 0, [](const std::string&) {});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "--rounds: must be at least 1 (got 0)");
  }
}

}  // namespace
}  // namespace tidal::validate
