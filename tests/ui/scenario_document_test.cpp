#include "ui/scenario_document.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "engine/sched/config.h"
#include "sim/default_scenario.h"
#include "sim/router.h"
#include "tests/scratch_folder.h"
#include "ui/scenario_form.h"

namespace tidal::ui {
namespace {

using ojson = nlohmann::ordered_json;

const std::string kScratch = "tidal_ui_doc";

// The message `tidal simulate` gives for the same JSON.
std::string cli_message(const ojson& raw, const std::string& label) {
  try {
    sim::parse_scenario(nlohmann::json::parse(raw.dump()), label, "");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ScenarioDocument, DefaultScenarioIsValidAndResolved) {
  const ScenarioDocument doc = ScenarioDocument::from_default();
  EXPECT_TRUE(doc.valid());
  EXPECT_EQ(doc.label(), "<built-in default scenario>");
  EXPECT_EQ(doc.scenario().name, "default");
  EXPECT_FALSE(doc.raw()["fleet"]["pools"][0].contains("block_size"));
  EXPECT_EQ(doc.resolved()["fleet"]["pools"][0]["block_size"], 16);
  EXPECT_FALSE(doc.modified());
}

TEST(ScenarioDocument, InvalidEditKeepsTheValueAndTheCliMessage) {
  ScenarioDocument doc = ScenarioDocument::from_default();
  doc.set("fleet.pools[0].tp", 3);
  EXPECT_FALSE(doc.valid());
  EXPECT_EQ(doc.raw()["fleet"]["pools"][0]["tp"], 3);
  EXPECT_EQ(doc.error(), cli_message(doc.raw(), doc.label()));
  EXPECT_EQ(doc.error_path(), "fleet.pools[0].tp");
  EXPECT_EQ(doc.resolved()["fleet"]["pools"][0]["tp"], 1);  // the last valid state
  EXPECT_TRUE(doc.modified());

  doc.set("fleet.pools[0].tp", 2);
  EXPECT_TRUE(doc.valid());
  EXPECT_EQ(doc.scenario().pools[0].deployment.tp, 2);
  doc.reset("fleet.pools[0].tp");
  EXPECT_TRUE(doc.valid());
  EXPECT_EQ(doc.scenario().pools[0].deployment.tp, 1);
  EXPECT_EQ(doc.revision(), 3);
}

TEST(ScenarioDocument, UnknownKeysAndWrongTypesNameTheirPath) {
  ScenarioDocument doc = ScenarioDocument::from_default();
  doc.set("fleet.pools[0].bogus", 1);
  EXPECT_FALSE(doc.valid());
  EXPECT_EQ(doc.error(), cli_message(doc.raw(), doc.label()));
  EXPECT_EQ(doc.error_path().rfind("fleet.pools[0]", 0), 0u) << doc.error();
  doc.reset("fleet.pools[0].bogus");
  doc.set("seed", "x");
  EXPECT_EQ(doc.error_path(), "seed");
  EXPECT_EQ(doc.error(), cli_message(doc.raw(), doc.label()));
}

TEST(ScenarioDocument, ErrorPathIsTheTextAfterTheLabel) {
  EXPECT_EQ(error_json_path("s.json: fleet.pools[0].tp: must be >= 1", "s.json"),
            "fleet.pools[0].tp");
  EXPECT_EQ(error_json_path("s.json: workloads[1].generator.rate: must be > 0", "s.json"),
            "workloads[1].generator.rate");
  EXPECT_EQ(error_json_path("s.json: parse error at line 3, column 2: x", "s.json"), "");
  EXPECT_EQ(error_json_path("no path here", "s.json"), "");
}

TEST(ScenarioDocument, SaveWritesTheEditedJsonAndLoadsBack) {
  const ScratchFolder scratch(kScratch, "save");
  const std::filesystem::path file = scratch.path() / "edited.json";
  ScenarioDocument doc = ScenarioDocument::from_default();
  doc.set("fleet.pools[0].num_replicas", 6);
  doc.save(file.string());
  EXPECT_FALSE(doc.modified());
  EXPECT_EQ(doc.path(), file.string());
  const ScenarioDocument back = ScenarioDocument::from_file(file.string());
  EXPECT_TRUE(back.valid());
  EXPECT_EQ(back.raw(), doc.raw());
  EXPECT_EQ(back.scenario().pools[0].num_replicas, 6);
  EXPECT_EQ(back.scenario().name, "default");  // the file keeps the name key
}

TEST(ScenarioDocument, FilesThatAreNotJsonFailLikeTheCli) {
  const ScratchFolder scratch(kScratch, "not_json");
  const std::filesystem::path file = scratch.path() / "broken.json";
  std::ofstream(file) << "{\n  \"seed\": 1,\n  oops\n}\n";
  std::string cli;
  try {
    sim::load_scenario_file(file.string());
  } catch (const InputError& e) {
    cli = e.what();
  }
  try {
    ScenarioDocument::from_file(file.string());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), cli);
    EXPECT_NE(cli.find("line 3"), std::string::npos) << cli;
  }
  EXPECT_THROW(ScenarioDocument::from_file((scratch.path() / "missing.json").string()), InputError);
}

TEST(ScenarioDocument, InvalidScenarioFilesLoadWithTheirError) {
  const ScratchFolder scratch(kScratch, "invalid");
  const std::filesystem::path file = scratch.path() / "invalid.json";
  ojson raw = ojson::parse(std::string(sim::default_scenario_json()));
  raw["fleet"]["pools"][0]["gpu"] = "Z80";
  std::ofstream(file) << raw.dump(2);
  const ScenarioDocument doc = ScenarioDocument::from_file(file.string());
  EXPECT_FALSE(doc.valid());
  EXPECT_EQ(doc.error_path(), "fleet.pools[0].gpu");
  EXPECT_EQ(doc.error().rfind(file.string() + ": fleet.pools[0].gpu: ", 0), 0u) << doc.error();
}

TEST(ScenarioDocument, TraceFilesReplayOnTheDefaultFleet) {
  const ScratchFolder scratch(kScratch, "trace");
  const std::filesystem::path trace = scratch.path() / "small_trace.csv";
  std::ofstream(trace) << "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                          "2023-11-16 18:15:46.6805900,374,44\n"
                          "2023-11-16 18:15:50.9951690,396,109\n";
  const ScenarioDocument doc = ScenarioDocument::from_trace(trace.string());
  ASSERT_TRUE(doc.valid()) << doc.error();
  EXPECT_EQ(doc.scenario().name, "small_trace");
  ASSERT_EQ(doc.scenario().workloads.size(), 1u);
  EXPECT_EQ(doc.scenario().workloads[0].trace->resolved_path, trace.string());
  EXPECT_FALSE(doc.scenario().duration_s.has_value());
  EXPECT_EQ(doc.scenario().pools[0].gpu, "H100-SXM");
  EXPECT_THROW(ScenarioDocument::from_trace((scratch.path() / "none.csv").string()), InputError);
}

TEST(ScenarioForm, FieldsWithFixedChoicesOfferTheRegistries) {
  const std::vector<std::string> gpus = scenario_choices("fleet.pools[0].gpu");
  EXPECT_NE(std::find(gpus.begin(), gpus.end(), "H100-SXM"), gpus.end());
  const std::vector<std::string> models = scenario_choices("fleet.pools[1].model");
  EXPECT_NE(std::find(models.begin(), models.end(), "llama-3-8b"), models.end());
  EXPECT_EQ(scenario_choices("fleet.pools[0].kv_dtype").size(), 7u);
  const std::vector<std::string> policies = scenario_choices("fleet.pools[0].scheduler.policy");
  EXPECT_EQ(policies, std::vector<std::string>(sched::batch_policy_names().begin(),
                                               sched::batch_policy_names().end()));
  EXPECT_NE(std::find(policies.begin(), policies.end(), "chunked_prefill"), policies.end());
  const std::vector<std::string> routers = scenario_choices("router.policy");
  EXPECT_EQ(routers,
            std::vector<std::string>(sim::router_names().begin(), sim::router_names().end()));
  EXPECT_NE(std::find(routers.begin(), routers.end(), "round_robin"), routers.end());
  EXPECT_FALSE(scenario_choices("workloads[0].generator.kind").empty());
  EXPECT_TRUE(scenario_choices("fleet.pools[0].tp").empty());
}

}  // namespace
}  // namespace tidal::ui
