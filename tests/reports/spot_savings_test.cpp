// Spot savings: the simulator's summary.json carries the exact figure from the billing ledger
// (costs.spot_savings_dollars: spot-billed time at the pool's on-demand price minus what it
// cost), the report prints it, and falls back to a labelled estimate for run folders without
// the field.
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/format.h"
#include "reports/json_fields.h"
#include "reports/report.h"
#include "reports/run_data.h"
#include "tests/reports/run_fixture.h"

namespace tidal::reports {
namespace {

namespace fs = std::filesystem;
using testing::read_text;

constexpr double kOnDemand = 6.0;  // $ per GPU-hour
constexpr double kSpot = 2.0;
constexpr double kReserved = 3.0;

// Two replicas on spot, one of them in a reserved slot (billed at the reserved price, not
// spot).
nlohmann::json spot_scenario() {
  nlohmann::json scenario = testing::small_scenario(2, "spot");
  scenario["fleet"]["pools"][0]["pricing"] = {{"market", "spot"},
                                              {"on_demand_per_gpu_hour", kOnDemand},
                                              {"spot_per_gpu_hour", kSpot},
                                              {"reserved_replicas", 1},
                                              {"reserved_per_gpu_hour", kReserved}};
  return scenario;
}

// The cost section's key figures: label -> text.
std::vector<std::pair<std::string, std::string>> cost_figures(const std::string& run_dir,
                                                              const fs::path& out) {
  const ReportPaths paths = write_report({run_dir}, (out / "report.html").string());
  const nlohmann::json report = nlohmann::json::parse(read_text(paths.json));
  std::vector<std::pair<std::string, std::string>> figures;
  for (const auto& s : report["sections"]) {
    if (s["id"] != "cost") continue;
    for (const auto& b : s["blocks"]) {
      if (b["type"] != "figures") continue;
      for (const auto& item : b["items"]) figures.emplace_back(item["label"], item["text"]);
    }
  }
  return figures;
}

std::string figure(const std::vector<std::pair<std::string, std::string>>& figures,
                   const std::string& label) {
  for (const auto& [l, text] : figures) {
    if (l == label) return text;
  }
  return "<none>";
}

bool has_label_starting(const std::vector<std::pair<std::string, std::string>>& figures,
                        const std::string& prefix) {
  for (const auto& [l, text] : figures) {
    if (l.starts_with(prefix)) return true;
  }
  return false;
}

class SpotSavingsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_.emplace(testing::kScratch, "spot_savings");
    root_ = scratch_->path();
    spot_ = testing::write_run_folder(spot_scenario(), root_ / "spot");
  }
  static void TearDownTestSuite() { scratch_.reset(); }
  static std::optional<ScratchFolder> scratch_;  // holds root_, the suite's folder
  static fs::path root_;
  static std::string spot_;
};
std::optional<ScratchFolder> SpotSavingsTest::scratch_;
fs::path SpotSavingsTest::root_;
std::string SpotSavingsTest::spot_;

TEST_F(SpotSavingsTest, SummaryCarriesTheLedgerFigure) {
  const nlohmann::json summary = read_json_file(spot_ + "/summary.json");
  const nlohmann::json& costs = summary["costs"];
  const double spot = costs["dollars_by_rate_class"]["spot"].get<double>();
  const double reserved = costs["dollars_by_rate_class"]["reserved"].get<double>();
  ASSERT_GT(spot, 0.0);
  ASSERT_GT(reserved, 0.0);
  // Spot time re-priced from $2 to $6 per GPU-hour: twice what it cost, to the micro-dollar;
  // the reserved slot's dollars do not count.
  EXPECT_NEAR(costs["spot_savings_dollars"].get<double>(), 2.0 * spot, 1e-6);
  EXPECT_EQ(read_summary(spot_ + "/summary.json").spot_savings_dollars,
            costs["spot_savings_dollars"].get<double>());
}

TEST_F(SpotSavingsTest, OnDemandRunSavesNothing) {
  const std::string dir =
      testing::write_run_folder(testing::small_scenario(1, "on-demand"), root_ / "on_demand");
  const nlohmann::json summary = read_json_file(dir + "/summary.json");
  EXPECT_EQ(summary["costs"]["spot_savings_dollars"].get<double>(), 0.0);
  EXPECT_FALSE(has_label_starting(cost_figures(dir, root_ / "on_demand_report"), "spot savings"));
}

TEST_F(SpotSavingsTest, ReportPrintsTheExactFigure) {
  const nlohmann::json summary = read_json_file(spot_ + "/summary.json");
  const auto figures = cost_figures(spot_, root_ / "exact_report");
  EXPECT_EQ(figure(figures, "spot savings (vs on-demand)"),
            format_dollars(summary["costs"]["spot_savings_dollars"].get<double>()));
  EXPECT_FALSE(has_label_starting(figures, "spot savings (estimate"));
}

TEST_F(SpotSavingsTest, FolderWithoutTheFieldGetsALabelledEstimate) {
  const fs::path old = root_ / "old";
  fs::create_directories(old);
  for (const char* file : {"requests.csv", "timeline.csv"})
    fs::copy_file(fs::path(spot_) / file, old / file);
  nlohmann::ordered_json summary =
      nlohmann::ordered_json::parse(read_text(fs::path(spot_) / "summary.json"));
  summary["costs"].erase("spot_savings_dollars");
  std::ofstream(old / "summary.json") << summary.dump(2);

  const RunSummary s = read_summary((old / "summary.json").string());
  EXPECT_FALSE(s.spot_savings_dollars.has_value());
  const std::optional<SpotSavings> savings = spot_savings(s);
  ASSERT_TRUE(savings.has_value());
  EXPECT_TRUE(savings->estimated);
  // The estimate re-prices the whole pool, reserved slot included.
  const double pool_dollars = summary["costs"]["pools"][0]["dollars"].get<double>();
  EXPECT_NEAR(savings->dollars, pool_dollars * (kOnDemand / kSpot - 1.0), 1e-9);
  const auto figures = cost_figures(old.string(), root_ / "old_report");
  EXPECT_EQ(figure(figures, "spot savings (estimate, vs on-demand)"),
            format_dollars(savings->dollars));
  EXPECT_FALSE(has_label_starting(figures, "spot savings (vs"));
}

}  // namespace
}  // namespace tidal::reports
