// The energy and carbon section: present only when summary.json has `energy`, its figures those
// of the summary, and "not computed" (not zero) where a site gives no carbon intensity.
#include <filesystem>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/format.h"
#include "reports/report.h"
#include "reports/run_data.h"
#include "tests/reports/run_fixture.h"

namespace tidal::reports {
namespace {

namespace fs = std::filesystem;
using testing::figures_of;
using testing::section_of;

TEST(EnergyReport, AbsentWithoutEnergy) {
  const ScratchFolder scratch(testing::kScratch, "energy_report_off");
  const fs::path& root = scratch.path();
  const std::string run =
      testing::write_run_folder(testing::small_scenario(1, "plain"), root / "run");
  EXPECT_FALSE(read_summary((fs::path(run) / "summary.json").string()).energy);
  EXPECT_TRUE(section_of(run, root, "energy").is_null());
}

TEST(EnergyReport, ShowsTheSummaryFigures) {
  const ScratchFolder scratch(testing::kScratch, "energy_report_on");
  const fs::path& root = scratch.path();
  nlohmann::json scenario = testing::small_scenario(2, "energy");
  scenario["energy"] = {{"pue", 1.2}, {"carbon_intensity_g_per_kwh", 400}};
  scenario["fleet"]["pools"][0]["energy"] = {{"host_power_w", 4600}};
  const std::string run = testing::write_run_folder(scenario, root / "run");
  const RunSummary s = read_summary((fs::path(run) / "summary.json").string());
  ASSERT_TRUE(s.energy);
  ASSERT_TRUE(s.energy->kg_co2e);
  EXPECT_DOUBLE_EQ(*s.energy->kg_co2e, s.energy->kwh * 0.4);
  EXPECT_NEAR(s.energy->kwh, s.energy->kwh_it * 1.2, 1e-12);
  ASSERT_EQ(s.energy->pools.size(), 1u);
  EXPECT_EQ(s.energy->pools[0].gpu_max_w, 700.0);
  EXPECT_EQ(s.energy->pools[0].host_power_w, 4600.0);
  EXPECT_FALSE(s.energy->energy_dollars);  // no price given

  const nlohmann::json section = section_of(run, root, "energy");
  ASSERT_FALSE(section.is_null());
  const auto figures = figures_of(section);
  EXPECT_EQ(figures.at("energy (kWh)"), format_significant(s.energy->kwh));
  EXPECT_EQ(figures.at("kgCO2e"), format_significant(*s.energy->kg_co2e));
  EXPECT_EQ(figures.at("energy cost"), "not computed");
}

TEST(EnergyReport, NamesPoolsWithoutAnIntensity) {
  const ScratchFolder scratch(testing::kScratch, "energy_report_missing");
  const fs::path& root = scratch.path();
  nlohmann::json scenario = testing::small_scenario(1, "no-carbon");
  scenario["energy"] = nlohmann::json::object();
  const std::string run = testing::write_run_folder(scenario, root / "run");
  const nlohmann::json section = section_of(run, root, "energy");
  ASSERT_FALSE(section.is_null());
  EXPECT_EQ(figures_of(section).at("kgCO2e"), "not computed");
  bool named = false;
  for (const auto& b : section["blocks"]) {
    if (b["type"] == "paragraph" &&
        b["text"].get<std::string>().find("No carbon figure for ") != std::string::npos) {
      named = true;
    }
  }
  EXPECT_TRUE(named);
}

}  // namespace
}  // namespace tidal::reports
