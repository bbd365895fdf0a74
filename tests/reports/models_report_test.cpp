// The models section: present only when summary.json has `by_model` (model routing), its
// figures and table rows those of the summary.
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

TEST(ModelsReport, AbsentWithoutModelRouting) {
  const ScratchFolder scratch(testing::kScratch, "models_report_off");
  const fs::path& root = scratch.path();
  const std::string run =
      testing::write_run_folder(testing::small_scenario(1, "plain"), root / "run");
  EXPECT_FALSE(read_summary((fs::path(run) / "summary.json").string()).models);
  EXPECT_TRUE(section_of(run, root, "models").is_null());
}

TEST(ModelsReport, ShowsTheSummaryFigures) {
  const ScratchFolder scratch(testing::kScratch, "models_report_on");
  const fs::path& root = scratch.path();
  nlohmann::json scenario = testing::small_scenario(2, "models");
  scenario["model_router"] = {{"policy", "fixed"}};
  const std::string run = testing::write_run_folder(scenario, root / "run");
  const RunSummary s = read_summary((fs::path(run) / "summary.json").string());
  ASSERT_TRUE(s.models);
  EXPECT_EQ(s.models->policy, "fixed");
  ASSERT_EQ(s.models->models.size(), 1u);
  const ModelFigures& m = s.models->models[0];
  EXPECT_EQ(m.num_requests, s.num_requests);
  EXPECT_EQ(m.num_finished, s.num_finished);
  EXPECT_DOUBLE_EQ(m.dollars, s.dollars);
  EXPECT_FALSE(m.quality_kept);  // fixed: nothing declared

  const nlohmann::json section = section_of(run, root, "models");
  ASSERT_FALSE(section.is_null());
  const auto figures = figures_of(section);
  EXPECT_EQ(figures.at("model router"), "fixed");
  EXPECT_EQ(figures.count("escalated requests"), 0u);
  bool found_table = false;
  for (const auto& b : section["blocks"]) {
    if (b["type"] != "table") continue;
    found_table = true;
    ASSERT_EQ(b["rows"].size(), 1u);
  }
  EXPECT_TRUE(found_table);
}

}  // namespace
}  // namespace tidal::reports
