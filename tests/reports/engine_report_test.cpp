// `tidal report` on an engine run folder (`tidal engine run`, the tiny preset replaying a
// generated trace): every run section renders from what the engine writes, the engine's own
// figures equal its summary.json, the cost section says the run is not priced, and an engine
// run compares with a simulator run (the engine/ and sim/ halves of a validation folder).
#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/engine_run.h"
#include "reports/csv_columns.h"
#include "reports/format.h"
#include "reports/json_fields.h"
#include "reports/report.h"
#include "reports/run_data.h"
#include "tests/reports/run_fixture.h"
#include "traces/generators.h"
#include "traces/writer.h"

namespace tidal::reports {
namespace {

namespace fs = std::filesystem;
using testing::read_text;

// 16 Poisson arrivals of short, repetitive requests on the tiny preset with n-gram
// speculation, written as a validation folder's engine/ half.
std::string write_engine_folder(const fs::path& dir) {
  fs::create_directories(dir);
  const std::vector<Request> requests =
      traces::generate(nlohmann::json{{"kind", "poisson"},
                                      {"rate", 40},
                                      {"num_requests", 16},
                                      {"prompt", {{"dist", "uniform"}, {"min", 4}, {"max", 60}}},
                                      {"output", {{"dist", "uniform"}, {"min", 2}, {"max", 12}}}},
                       3);
  const fs::path trace = dir / "trace.jsonl";
  traces::write_trace(trace.string(), requests);
  engine::EngineRunArgs args;
  args.model = "tiny";
  args.trace = trace.string();
  args.out_dir = (dir / "engine").string();
  args.config.num_gpu_blocks = 256;
  args.config.spec = engine::parse_spec_config("ngram:2", "--spec");
  args.replay.time_scale = 0.5;
  engine::run_engine(args);
  return args.out_dir;
}

nlohmann::json write_and_read(const std::vector<std::string>& folders, const fs::path& out,
                              std::string* html) {
  const ReportPaths paths = write_report(folders, (out / "report.html").string());
  *html = read_text(paths.html);
  return nlohmann::json::parse(read_text(paths.json));
}

const nlohmann::json* find_section(const nlohmann::json& report, const std::string& id) {
  for (const auto& s : report["sections"]) {
    if (s["id"] == id) return &s;
  }
  return nullptr;
}

const nlohmann::json* find_block(const nlohmann::json& report, const std::string& type,
                                 const std::string& id) {
  for (const auto& s : report["sections"]) {
    for (const auto& b : s["blocks"]) {
      if (b["type"] == type && b["id"] == id) return &b;
    }
  }
  return nullptr;
}

// The text of a figure (key figures) of a section.
std::string figure_text(const nlohmann::json& section, const std::string& label) {
  for (const auto& b : section["blocks"]) {
    if (b["type"] != "figures") continue;
    for (const auto& item : b["items"]) {
      if (item["label"] == label) return item["text"];
    }
  }
  return "<no figure " + label + ">";
}

// The value column of the engine-figures table's row `name`.
nlohmann::json engine_figure(const nlohmann::json& table, const std::string& name) {
  for (const auto& row : table["rows"]) {
    if (row[0]["text"] == name) return row[1];
  }
  return nlohmann::json{{"text", "<no row " + name + ">"}};
}

class EngineReportTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_.emplace(testing::kScratch, "engine_report");
    root_ = scratch_->path();
    engine_ = write_engine_folder(root_ / "validation");
    sim_ = testing::write_run_folder(testing::small_scenario(1, "sim-h100"),
                                     root_ / "validation" / "sim");
  }
  static void TearDownTestSuite() { scratch_.reset(); }
  static std::optional<ScratchFolder> scratch_;  // holds root_, the suite's folder
  static fs::path root_;
  static std::string engine_, sim_;
};
std::optional<ScratchFolder> EngineReportTest::scratch_;
fs::path EngineReportTest::root_;
std::string EngineReportTest::engine_, EngineReportTest::sim_;

TEST_F(EngineReportTest, EngineRunRendersEveryRunSection) {
  std::string html;
  const nlohmann::json report = write_and_read({engine_}, root_ / "single", &html);
  std::vector<std::string> ids;
  for (const auto& s : report["sections"]) ids.push_back(s["id"]);
  EXPECT_EQ(ids, (std::vector<std::string>{"overview", "workload", "latency", "fleet", "cost"}));
  EXPECT_EQ(testing::tag_balance_error(html), "");
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("Engine over time"), std::string::npos);
  for (const char* chart : {"arrival-rate", "prompt-length-cdf", "ttft-cdf", "tpot-cdf", "e2e-cdf",
                            "queue-delay-cdf", "queue-running", "kv-utilization"}) {
    EXPECT_NE(find_block(report, "chart", chart), nullptr) << chart;
  }
  // One warm replica: nothing to stack, no cost curves.
  EXPECT_EQ(find_block(report, "chart", "replicas"), nullptr);
  EXPECT_EQ(find_block(report, "chart", "cumulative-cost"), nullptr);
  EXPECT_EQ(find_block(report, "table", "pools"), nullptr);
  EXPECT_NE(find_block(report, "table", "engine"), nullptr);
  // The trace's class names, without SLOs.
  const nlohmann::json* classes = find_block(report, "table", "classes");
  ASSERT_NE(classes, nullptr);
  ASSERT_EQ(classes->at("rows").size(), 1u);
  EXPECT_EQ(classes->at("rows")[0][1]["value"], 16);
  EXPECT_EQ(classes->at("rows")[0][3]["text"], "none (engine run)");
}

TEST_F(EngineReportTest, FiguresEqualTheEngineSummaryJson) {
  std::string html;
  const nlohmann::json report = write_and_read({engine_}, root_ / "figures", &html);
  const nlohmann::json summary = read_json_file(engine_ + "/summary.json");
  const nlohmann::json& m = summary["metrics"];
  const nlohmann::json& run = summary["run"];
  const nlohmann::json& spec = summary["speculative"];

  const nlohmann::json* overview = find_section(report, "overview");
  ASSERT_NE(overview, nullptr);
  EXPECT_EQ(figure_text(*overview, "requests"), format_count(m["num_requests"].get<int64_t>()));
  EXPECT_EQ(figure_text(*overview, "finished"), format_count(m["num_finished"].get<int64_t>()));
  EXPECT_EQ(figure_text(*overview, "p99 TTFT"), format_latency(m["ttft"]["p99_s"].get<double>()));
  EXPECT_EQ(figure_text(*overview, "p99 E2E"), format_latency(m["e2e"]["p99_s"].get<double>()));
  EXPECT_EQ(figure_text(*overview, "total cost"), "not priced");
  EXPECT_EQ(figure_text(*overview, "engine steps"), format_count(run["num_steps"].get<int64_t>()));
  EXPECT_EQ(report["title"], "tidal report: engine: tiny");

  const nlohmann::json* latency = find_block(report, "table", "latency-percentiles");
  ASSERT_NE(latency, nullptr);
  const nlohmann::json& all = latency->at("rows").back();
  EXPECT_EQ(all[0]["text"], "all");
  EXPECT_DOUBLE_EQ(all[3]["value"].get<double>(), m["ttft"]["p99_s"].get<double>());
  EXPECT_DOUBLE_EQ(all[9]["value"].get<double>(), m["e2e"]["p99_s"].get<double>());

  const nlohmann::json* figures = find_block(report, "table", "engine-figures");
  ASSERT_NE(figures, nullptr);
  EXPECT_EQ(engine_figure(*figures, "steps")["value"], run["num_steps"]);
  EXPECT_EQ(engine_figure(*figures, "preemptions (requests)")["value"], m["num_preemptions"]);
  EXPECT_EQ(engine_figure(*figures, "prefix-cache hit tokens")["value"],
            m["num_prefix_hit_tokens"]);
  EXPECT_EQ(engine_figure(*figures, "prefix-cache blocks queried")["value"],
            run["num_prefix_queried_blocks"]);
  EXPECT_EQ(engine_figure(*figures, "speculative decoding")["text"], "ngram:2");
  EXPECT_EQ(engine_figure(*figures, "verifications")["value"], spec["num_verifications"]);
  EXPECT_EQ(engine_figure(*figures, "draft tokens")["value"], spec["num_draft_tokens"]);
  EXPECT_EQ(engine_figure(*figures, "accepted draft tokens")["value"], spec["num_accepted_tokens"]);
  ASSERT_GT(spec["num_draft_tokens"].get<int64_t>(), 0) << "the n-gram drafter proposed nothing";
  EXPECT_EQ(engine_figure(*figures, "acceptance rate")["text"],
            format_percent(spec["acceptance_rate"].get<double>()));

  const nlohmann::json* engine = find_block(report, "table", "engine");
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->at("rows")[0][0]["text"], summary["inputs"]["model_source"]);
  EXPECT_EQ(engine->at("rows")[0][9]["value"], summary["engine"]["num_gpu_blocks"]);
}

TEST_F(EngineReportTest, PeaksAreTheIntervalMaximaAndHoldEveryStep) {
  // The engine's timeline follows its steps inside each interval: no interval's maximum of
  // running requests is below a step that started in it (steps.csv), nor below the end sample.
  const TimelineRows t = read_timeline(engine_ + "/timeline.csv");
  ASSERT_EQ(t.running_max.size(), t.size());
  const CsvColumns steps = read_csv_columns(
      engine_ + "/steps.csv", {{"start_s", CellKind::number}, {"num_seqs", CellKind::number}});
  double largest_step = 0.0;
  for (size_t i = 0; i < steps.columns[0].numbers.size(); ++i) {
    const double start = steps.columns[0].numbers[i];
    const double seqs = steps.columns[1].numbers[i];
    largest_step = std::max(largest_step, seqs);
    for (size_t r = 0; r < t.size(); ++r) {
      if (start >= t.start_s[r] && start < t.end_s[r]) {
        EXPECT_GE(t.running_max[r], seqs) << r;
      }
    }
  }
  double peak = 0.0;
  for (size_t r = 0; r < t.size(); ++r) {
    EXPECT_GE(t.running_max[r], t.running[r]);
    EXPECT_GE(t.queue_depth_max[r], t.queue_depth[r]);
    EXPECT_GE(t.kv_usage_max[r], t.kv_usage[r]);
    peak = std::max(peak, t.running_max[r]);
  }
  EXPECT_GE(peak, largest_step);
  std::string html;
  const nlohmann::json report = write_and_read({engine_}, root_ / "peaks", &html);
  const nlohmann::json* fleet = find_section(report, "fleet");
  ASSERT_NE(fleet, nullptr);
  EXPECT_EQ(figure_text(*fleet, "peak running"), format_count(static_cast<int64_t>(peak)));
}

TEST_F(EngineReportTest, CostSectionSaysTheRunIsNotPriced) {
  std::string html;
  const nlohmann::json report = write_and_read({engine_}, root_ / "cost", &html);
  const nlohmann::json* cost = find_section(report, "cost");
  ASSERT_NE(cost, nullptr);
  ASSERT_EQ(cost->at("blocks").size(), 1u);
  const nlohmann::json& note = cost->at("blocks")[0];
  EXPECT_EQ(note["type"], "paragraph");
  EXPECT_TRUE(note["text"].get<std::string>().starts_with("Not priced: this is an engine run"))
      << note["text"];
  EXPECT_EQ(html.find("$0.00"), std::string::npos) << "no invented dollars";
}

TEST_F(EngineReportTest, EngineRunComparesWithASimulatorRun) {
  std::string html;
  const nlohmann::json report = write_and_read({engine_, sim_}, root_ / "compare", &html);
  EXPECT_EQ(testing::tag_balance_error(html), "");
  EXPECT_EQ(report["title"], "tidal report: engine: tiny vs sim-h100");
  for (const char* id : {"comparison", "overview-1", "fleet-1", "cost-1", "overview-2", "fleet-2",
                         "cost-2", "hol-2"}) {
    EXPECT_NE(find_section(report, id), nullptr) << id;
  }
  const nlohmann::json* table = find_block(report, "table", "comparison-table");
  ASSERT_NE(table, nullptr);
  const nlohmann::json sim = read_json_file(sim_ + "/summary.json");
  const nlohmann::json engine = read_json_file(engine_ + "/summary.json");
  bool saw_cost = false, saw_ttft = false;
  for (const auto& row : table->at("rows")) {
    if (row[0]["text"] == "total cost") {
      saw_cost = true;
      EXPECT_EQ(row[1]["text"], "n/a");
      EXPECT_EQ(row[2]["text"], format_dollars(sim["costs"]["dollars"].get<double>()));
      EXPECT_EQ(row[3]["text"], "n/a");
    }
    if (row[0]["text"] == "p99 TTFT") {
      saw_ttft = true;
      EXPECT_EQ(row[1]["text"], format_latency(engine["metrics"]["ttft"]["p99_s"].get<double>()));
      EXPECT_EQ(row[2]["text"], format_latency(sim["metrics"]["ttft"]["p99_s"].get<double>()));
      EXPECT_DOUBLE_EQ(row[3]["value"].get<double>(),
                       sim["metrics"]["ttft"]["p99_s"].get<double>() /
                           engine["metrics"]["ttft"]["p99_s"].get<double>());
    }
  }
  EXPECT_TRUE(saw_cost);
  EXPECT_TRUE(saw_ttft);
  const nlohmann::json* verdicts = find_block(report, "table", "verdicts-2");
  ASSERT_NE(verdicts, nullptr);
  EXPECT_EQ(verdicts->at("rows")[8][1]["text"].get<std::string>().rfind(
                "total cost: no total cost to compare", 0),
            0u)
      << verdicts->at("rows")[8];
  // Only the priced run draws a spend curve.
  const nlohmann::json* spend = find_block(report, "chart", "comparison-cumulative-cost");
  ASSERT_NE(spend, nullptr);
  EXPECT_EQ(spend->at("data")["series"].size(), 1u);
  EXPECT_NE(find_block(report, "chart", "comparison-ttft-cdf"), nullptr);
}

}  // namespace
}  // namespace tidal::reports
