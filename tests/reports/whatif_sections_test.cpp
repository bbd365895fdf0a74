// The what-if sections: egress, LoRA adapters and lossy speedups, each present only when
// summary.json has costs.egress (the scenario prices egress), `lora` (a pool serves adapters) or
// a pool has `lossy`; their figures those of the summary, the declared quality loss marked not
// verified.
#include <filesystem>
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

// small_scenario's clients 30 ms from the GPU region, the link priced at `per_gb`.
nlohmann::json networked(const std::string& name, double per_gb) {
  nlohmann::json scenario = testing::small_scenario(1, name);
  scenario["network"] = {
      {"regions", {{{"name", "c"}, {"kind", "client"}}, {{"name", "g"}, {"kind", "gpu"}}}},
      {"links", {{{"from", "c"}, {"to", "g"}, {"latency_ms", 30}, {"egress_per_gb", per_gb}}}}};
  for (auto& w : scenario["workloads"]) w["region"] = "c";
  scenario["fleet"]["pools"][0]["region"] = "g";
  return scenario;
}

TEST(EgressReport, AbsentWhenNothingIsPriced) {
  const ScratchFolder scratch(testing::kScratch, "egress_report_off");
  const fs::path& root = scratch.path();
  const std::string run = testing::write_run_folder(networked("free", 0.0), root / "run");
  EXPECT_FALSE(read_summary((fs::path(run) / "summary.json").string()).egress);
  EXPECT_TRUE(section_of(run, root, "egress").is_null());
  EXPECT_TRUE(section_of(run, root, "lossy").is_null());
}

TEST(EgressReport, ShowsTheSummaryFigures) {
  const ScratchFolder scratch(testing::kScratch, "egress_report_on");
  const fs::path& root = scratch.path();
  const std::string run = testing::write_run_folder(networked("priced", 0.09), root / "run");
  const RunSummary s = read_summary((fs::path(run) / "summary.json").string());
  ASSERT_TRUE(s.egress);
  ASSERT_EQ(s.egress->links.size(), 1u);
  EXPECT_GT(s.egress->links[0].carried.bytes, 0.0);
  EXPECT_NEAR(s.egress->dollars, s.egress->request.dollars + s.egress->response.dollars,
              1e-9 * s.egress->dollars);
  EXPECT_NEAR(s.egress->links[0].carried.dollars, s.egress->dollars, 1e-9 * s.egress->dollars);
  ASSERT_EQ(s.egress->pools.size(), 1u);
  EXPECT_DOUBLE_EQ(s.egress->pools[0].dollars, s.egress->dollars);
  const nlohmann::json section = section_of(run, root, "egress");
  ASSERT_FALSE(section.is_null());
  const auto figures = figures_of(section);
  EXPECT_EQ(figures.at("egress"), format_dollars(s.egress->dollars));
  EXPECT_EQ(figures.at("share of cost"), format_percent(s.egress->dollars / s.dollars));
}

TEST(LossyReport, MarksTheDeclaredLossNotVerified) {
  const ScratchFolder scratch(testing::kScratch, "lossy_report");
  const fs::path& root = scratch.path();
  nlohmann::json scenario = testing::small_scenario(1, "lossy");
  scenario["fleet"]["pools"][0]["lossy"] = {{"kv_kept_ratio", 0.5},
                                            {"declared_quality_loss", 0.03}};
  const std::string run = testing::write_run_folder(scenario, root / "run");
  const RunSummary s = read_summary((fs::path(run) / "summary.json").string());
  ASSERT_TRUE(s.pools[0].lossy);
  EXPECT_EQ(s.pools[0].lossy->kv_kept_ratio, 0.5);
  EXPECT_FALSE(s.pools[0].lossy->kv_window_tokens);
  const nlohmann::json section = section_of(run, root, "lossy");
  ASSERT_FALSE(section.is_null());
  bool found = false;
  for (const auto& b : section["blocks"]) {
    if (b["type"] != "table") continue;
    ASSERT_EQ(b["rows"].size(), 1u);
    const nlohmann::json& row = b["rows"][0];
    EXPECT_EQ(row[row.size() - 1]["text"], "3.0% (not verified)");
    found = true;
  }
  EXPECT_TRUE(found);
}

TEST(LoraReport, ShowsEachLoraPoolsLoads) {
  const ScratchFolder scratch(testing::kScratch, "lora_report");
  const fs::path& root = scratch.path();
  nlohmann::json scenario = testing::small_scenario(1, "lora");
  scenario["fleet"]["pools"][0]["lora"] = {{"max_loras_per_batch", 2}, {"max_cpu_loras", 4}};
  scenario["workloads"][0]["adapters"] = {{"count", 10}};
  const std::string run = testing::write_run_folder(scenario, root / "run");
  const RunSummary s = read_summary((fs::path(run) / "summary.json").string());
  ASSERT_TRUE(s.lora);
  EXPECT_EQ(s.lora->num_adapters, 10);
  ASSERT_EQ(s.lora->pools.size(), 1u);
  EXPECT_GE(s.lora->pools[0].num_loads, 10);
  const nlohmann::json section = section_of(run, root, "lora");
  ASSERT_FALSE(section.is_null());
  EXPECT_EQ(figures_of(section).at("adapters named"), "10");
  const std::string plain =
      testing::write_run_folder(testing::small_scenario(1, "plain"), root / "plain");
  EXPECT_TRUE(section_of(plain, root, "lora").is_null());
}

}  // namespace
}  // namespace tidal::reports
