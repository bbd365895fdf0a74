// Reading run folders strictly: figures match summary.json, and a missing file, column or
// field is an InputError naming it.
#include <fstream>
#include <optional>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "reports/csv_columns.h"
#include "reports/json_fields.h"
#include "reports/run_data.h"
#include "tests/reports/run_fixture.h"

namespace tidal::reports {
namespace {

namespace fs = std::filesystem;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

class RunDataTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_.emplace(testing::kScratch, "run_data");
    dir_ = testing::write_run_folder(testing::small_scenario(1, "small"), scratch_->path() / "run");
  }
  static void TearDownTestSuite() { scratch_.reset(); }
  static std::optional<ScratchFolder> scratch_;  // holds dir_, the suite's run folder
  static std::string dir_;
};
std::optional<ScratchFolder> RunDataTest::scratch_;
std::string RunDataTest::dir_;

TEST_F(RunDataTest, FiguresMatchTheRunFiles) {
  const RunData run = load_run(dir_);
  const nlohmann::json summary = read_json_file(dir_ + "/summary.json");
  EXPECT_EQ(run.label, "small");
  EXPECT_EQ(run.summary.num_requests, summary["metrics"]["num_requests"].get<int64_t>());
  EXPECT_EQ(static_cast<int64_t>(run.requests.size()), run.summary.num_requests);
  EXPECT_DOUBLE_EQ(*run.summary.ttft.p99_s, summary["metrics"]["ttft"]["p99_s"].get<double>());
  EXPECT_DOUBLE_EQ(run.summary.dollars, summary["costs"]["dollars"].get<double>());
  ASSERT_EQ(run.summary.classes.size(), 2u);
  EXPECT_EQ(run.summary.classes[0].name, "batch");
  EXPECT_EQ(run.requests.tenant_names, (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_EQ(run.requests.class_names, (std::vector<std::string>{"batch", "interactive"}));
  ASSERT_EQ(run.summary.pools.size(), 1u);
  EXPECT_EQ(run.summary.pools[0].gpu, "H100-SXM");
  EXPECT_GT(run.timeline.size(), 10u);
  ASSERT_FALSE(run.timeline.replicas_by_state.empty());
  EXPECT_EQ(run.timeline.replicas_by_state[1].name, "warm");
  double arrivals = 0;
  for (double a : run.timeline.arrivals) arrivals += a;
  EXPECT_EQ(static_cast<int64_t>(arrivals), run.summary.num_requests);
  // Fleet-simulation fields.
  EXPECT_EQ(run.requests.hol_delay_s.size(), run.requests.size());
  EXPECT_EQ(run.requests.hol_caused_s.size(), run.requests.size());
  ASSERT_FALSE(run.summary.dollars_by_state.empty());
  EXPECT_EQ(run.summary.dollars_by_state.front().first, "requested");  // lifecycle order
  ASSERT_TRUE(run.summary.fleet.has_value());
  ASSERT_EQ(run.summary.fleet->pools.size(), 1u);
  EXPECT_EQ(run.summary.fleet->pools[0].stages_s.front().first, "total_s");
  EXPECT_FALSE(spot_savings_estimate(run.summary).has_value());  // on-demand only
  const std::vector<const NamedSeries*> states = distinct_replica_states(run.timeline);
  for (const NamedSeries* state : states) EXPECT_NE(state->name, "starting");
}

TEST_F(RunDataTest, MissingFilesAreNamed) {
  const ScratchFolder scratch(testing::kScratch, "run_data_missing");
  const fs::path copy = scratch.path() / "run";
  fs::create_directories(copy);
  fs::copy_file(fs::path(dir_) / "summary.json", copy / "summary.json");
  fs::copy_file(fs::path(dir_) / "timeline.csv", copy / "timeline.csv");
  EXPECT_EQ(error_of([&] { load_run(copy.string()); }),
            (copy / "requests.csv").string() + ": missing (summary.json files lists it)");
}

TEST_F(RunDataTest, TheStepTimeModelLineGivesTheCalibrationsErrors) {
  // A calibrated pool says how far its calibration was off on the rows it was fitted to and, when
  // `tidal calibrate --held-out` measured it, on models it was not fitted to.
  const ScratchFolder scratch(testing::kScratch, "run_data_calibration");
  const fs::path& dir = scratch.path();
  nlohmann::json summary = read_json_file(dir_ + "/summary.json");
  nlohmann::json& model = summary["resolved"]["pools"][0]["step_time_model"];
  model["calibration"] = {{"fitted_on_rows", 4},
                          {"fitted_on_models", {"a", "b"}},
                          {"ttft_mape_pct", 12.25},
                          {"tpot_mape_pct", 3.5}};
  write(dir / "summary.json", summary.dump());
  std::string line = read_summary((dir / "summary.json").string()).pools[0].step_time_model;
  EXPECT_NE(line.find("calibrated (4 rows of 2 models: TTFT 12.2%, TPOT 3.5% MAPE on them); not "
                      "measured on models it was not fitted to"),
            std::string::npos)
      << line;
  model["calibration"]["held_out"] = {{"num_rows", 30},
                                      {"num_architectures", 3},
                                      {"num_rows_unfinished", 2},
                                      {"ttft_mape_pct", 41.0},
                                      {"tpot_mape_pct", 9.0},
                                      {"uncalibrated_ttft_mape_pct", 44.0},
                                      {"uncalibrated_tpot_mape_pct", 10.5}};
  write(dir / "summary.json", summary.dump());
  line = read_summary((dir / "summary.json").string()).pools[0].step_time_model;
  EXPECT_NE(line.find("on models it was not fitted to (30 rows of 3 architectures, each left out "
                      "of its fit): TTFT 41.0%, TPOT 9.0% MAPE, uncalibrated 44.0%, 10.5% (2 more "
                      "rows: no measured "
                      "request finished in a prediction)"),
            std::string::npos)
      << line;
  model["calibration"]["held_out"].erase("num_architectures");
  write(dir / "summary.json", summary.dump());
  EXPECT_NE(error_of([&] {
              read_summary((dir / "summary.json").string());
            }).find("calibration.held_out.num_architectures: missing"),
            std::string::npos);
}

TEST_F(RunDataTest, MissingColumnsAndFieldsAreNamed) {
  const ScratchFolder scratch(testing::kScratch, "run_data_columns");
  const fs::path& dir = scratch.path();
  write(dir / "timeline.csv", "start_s,end_s,arrivals\n0,1,2\n");
  EXPECT_EQ(error_of([&] { read_timeline((dir / "timeline.csv").string()); }),
            (dir / "timeline.csv").string() + ":1: column \"finished\" is missing from the header");
  write(dir / "bad.csv", "a,b\n1,2\n3,x\n");
  EXPECT_EQ(error_of([&] {
              read_csv_columns((dir / "bad.csv").string(), {{"b", CellKind::number, true}});
            }),
            (dir / "bad.csv").string() + ":3: b: expected a number, got \"x\"");
  write(dir / "short.csv", "a,b\n1\n");
  EXPECT_EQ(error_of([&] {
              read_csv_columns((dir / "short.csv").string(), {{"a", CellKind::number, true}});
            }),
            (dir / "short.csv").string() + ":2: 1 fields, the header has 2");

  nlohmann::json summary = read_json_file(dir_ + "/summary.json");
  summary["metrics"]["ttft"].erase("p99_s");
  write(dir / "summary.json", summary.dump());
  EXPECT_EQ(error_of([&] { read_summary((dir / "summary.json").string()); }),
            (dir / "summary.json").string() + ": metrics.ttft.p99_s: missing");
  summary = read_json_file(dir_ + "/summary.json");
  summary["costs"]["dollars"] = "12";
  write(dir / "summary.json", summary.dump());
  EXPECT_EQ(error_of([&] { read_summary((dir / "summary.json").string()); }),
            (dir / "summary.json").string() + ": costs.dollars: expected a number, got \"12\"");
  summary = read_json_file(dir_ + "/summary.json");
  summary.erase("scenario");
  write(dir / "summary.json", summary.dump());
  EXPECT_EQ(error_of([&] { read_summary((dir / "summary.json").string()); }),
            (dir / "summary.json").string() +
                ": scenario: missing (a simulator run has \"scenario\", an engine run has "
                "\"engine\"; this file has neither)");
}

// A failure of the value itself (an empty key) names its path, or "(root)", without a trailing dot.
TEST(JsonView, TheValueItselfIsNamedByItsPath) {
  const nlohmann::json summary = {{"costs", {{"pools", nlohmann::json::array()}}}};
  const JsonView pools(summary["costs"]["pools"], "summary.json", "costs.pools");
  EXPECT_EQ(error_of([&] { pools.fail("", "0 pools, scenario.fleet.pools has 1"); }),
            "summary.json: costs.pools: 0 pools, scenario.fleet.pools has 1");
  const JsonView root(summary, "summary.json");
  EXPECT_EQ(error_of([&] { root.fail("", "expected an object"); }),
            "summary.json: (root): expected an object");
}

TEST(CsvColumns, QuotedFieldsAndOptionalColumns) {
  const ScratchFolder scratch(testing::kScratch, "csv_quoted");
  const fs::path& dir = scratch.path();
  write(dir / "q.csv", "name,v\n\"a, \"\"b\"\"\",1.5\nc,\n");
  const CsvColumns csv =
      read_csv_columns((dir / "q.csv").string(), {{"name", CellKind::text, true},
                                                  {"v", CellKind::optional_number, true},
                                                  {"absent", CellKind::number, false}});
  EXPECT_EQ(csv.num_rows, 2);
  EXPECT_EQ(csv.columns[0].texts, (std::vector<std::string>{"a, \"b\"", "c"}));
  EXPECT_DOUBLE_EQ(csv.columns[1].numbers[0], 1.5);
  EXPECT_TRUE(std::isnan(csv.columns[1].numbers[1]));
  EXPECT_FALSE(csv.columns[2].present);
}

}  // namespace
}  // namespace tidal::reports
