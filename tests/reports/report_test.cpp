// `tidal report` end to end on simulated run folders: the HTML is well-formed and
// self-contained, holds every section and the figures of summary.json as the report formats
// them; report.md and report.json carry the same tables; several runs get a comparison with
// ratios; validation and plan folders render.
#include <algorithm>
#include <fstream>
#include <optional>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "base/input_error.h"
#include "reports/format.h"
#include "reports/json_fields.h"
#include "reports/report.h"
#include "reports/run_data.h"
#include "tests/reports/run_fixture.h"

namespace tidal::reports {
namespace {

namespace fs = std::filesystem;
using testing::read_text;

struct Rendered {
  std::string html, md;
  nlohmann::json json;
};

Rendered render(const std::vector<std::string>& folders, const fs::path& out_dir) {
  const ReportPaths paths = write_report(folders, (out_dir / "report.html").string());
  EXPECT_EQ(paths.markdown, (out_dir / "report.md").string());
  return Rendered{read_text(paths.html), read_text(paths.markdown),
                  nlohmann::json::parse(read_text(paths.json))};
}

std::vector<std::string> section_ids(const nlohmann::json& report) {
  std::vector<std::string> ids;
  for (const auto& s : report["sections"]) ids.push_back(s["id"]);
  return ids;
}

// The markdown row of a table row of report.json.
std::string md_row(const nlohmann::json& row) {
  std::string line = "|";
  for (const auto& cell : row) line += fmt::format(" {} |", cell["text"].get<std::string>());
  return line;
}

const nlohmann::json* find_table(const nlohmann::json& report, const std::string& id) {
  for (const auto& s : report["sections"]) {
    for (const auto& b : s["blocks"]) {
      if (b["type"] == "table" && b["id"] == id) return &b;
    }
  }
  return nullptr;
}

class ReportTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_.emplace(testing::kScratch, "report");
    root_ = scratch_->path();
    one_ = testing::write_run_folder(testing::small_scenario(1, "one-replica"), root_ / "one");
    two_ = testing::write_run_folder(testing::small_scenario(2, "two-replicas"), root_ / "two");
  }
  static void TearDownTestSuite() { scratch_.reset(); }
  static std::optional<ScratchFolder> scratch_;  // holds root_, the suite's folder
  static fs::path root_;
  static std::string one_, two_;
};
std::optional<ScratchFolder> ReportTest::scratch_;
fs::path ReportTest::root_;
std::string ReportTest::one_, ReportTest::two_;

TEST_F(ReportTest, SingleRunHtmlIsWellFormedAndSelfContained) {
  const Rendered r = render({one_}, root_ / "single");
  EXPECT_EQ(testing::tag_balance_error(r.html), "");
  EXPECT_TRUE(r.html.starts_with("<!DOCTYPE html>"));
  EXPECT_EQ(r.html.find("<script"), std::string::npos);
  EXPECT_EQ(r.html.find("src="), std::string::npos);
  EXPECT_EQ(r.html.find("@import"), std::string::npos);
  EXPECT_EQ(r.html.find("url("), std::string::npos);
  for (size_t i = r.html.find("http"); i != std::string::npos; i = r.html.find("http", i + 1)) {
    EXPECT_EQ(r.html.compare(i, 26, "http://www.w3.org/2000/svg"), 0) << r.html.substr(i, 60);
  }
  for (const char* id : {"overview", "workload", "latency", "fleet", "cost", "hol"}) {
    EXPECT_NE(r.html.find(std::string("<section id=\"") + id + "\">"), std::string::npos) << id;
  }
  EXPECT_EQ(section_ids(r.json),
            (std::vector<std::string>{"overview", "workload", "latency", "fleet", "cost", "hol"}));
  for (const char* table :
       {"tenants", "classes", "slo-attainment", "latency-percentiles", "pools", "cold-starts",
        "cost-by-state", "cost-by-price-class", "cost-by-pool", "hol-by-tenant"}) {
    EXPECT_NE(find_table(r.json, table), nullptr) << table;
  }
  EXPECT_EQ(find_table(r.json, "cost-by-state")->at("title"),
            "Cost by lifecycle state (summary.json costs.dollars_by_state)");
  for (const char* chart : {"arrival-rate", "prompt-length-cdf", "ttft-cdf", "tpot-cdf", "e2e-cdf",
                            "replicas", "queue-running", "kv-utilization", "cumulative-cost"}) {
    EXPECT_NE(r.html.find(std::string("<figure id=\"") + chart + "\""), std::string::npos) << chart;
  }
}

TEST_F(ReportTest, FiguresEqualSummaryJsonAsFormatted) {
  const Rendered r = render({one_}, root_ / "figures");
  const nlohmann::json summary = read_json_file(one_ + "/summary.json");
  const nlohmann::json& m = summary["metrics"];
  const nlohmann::json& c = summary["costs"];
  std::vector<std::string> expected{
      format_count(m["num_requests"].get<int64_t>()),
      format_latency(m["ttft"]["p99_s"].get<double>()),
      format_latency(m["ttft"]["p50_s"].get<double>()),
      format_latency(m["tpot"]["p99_s"].get<double>()),
      format_latency(m["e2e"]["p99_s"].get<double>()),
      format_latency(m["itl"]["p99_s"].get<double>()),
      format_percent(m["slo_attainment"].get<double>()),
      format_rate(m["goodput_rps"].get<double>(), "req/s"),
      format_dollars(c["dollars"].get<double>()),
      format_dollars(c["dollars_per_1m_output_tokens"].get<double>()),
      format_dollars(c["dollars_per_1m_input_tokens"].get<double>()),
      format_percent(m["utilization"].get<double>()),
  };
  for (const auto& k : m["slo_classes"]) {
    expected.push_back(format_latency(k["ttft"]["p99_s"].get<double>()));
    expected.push_back(format_latency(k["e2e"]["p90_s"].get<double>()));
    expected.push_back(format_percent(k["slo_attainment"].get<double>()));
    expected.push_back(format_count(k["num_requests"].get<int64_t>()));
  }
  for (const std::string& text : expected) {
    EXPECT_NE(r.html.find(std::string(">") + text + "<"), std::string::npos) << text;
    EXPECT_NE(r.md.find(text), std::string::npos) << text;
  }
  // Per-tenant SLO shares come from requests.csv; over all tenants they equal the summary's.
  const nlohmann::json* tenants = find_table(r.json, "tenants");
  ASSERT_NE(tenants, nullptr);
  EXPECT_EQ(tenants->at("rows").back()[3]["text"],
            format_percent(m["slo_attainment"].get<double>()));
  // The raw values travel in report.json next to the text.
  const nlohmann::json* table = find_table(r.json, "latency-percentiles");
  ASSERT_NE(table, nullptr);
  const nlohmann::json& all = table->at("rows").back();
  EXPECT_EQ(all[0]["text"], "all");
  EXPECT_DOUBLE_EQ(all[3]["value"].get<double>(), m["ttft"]["p99_s"].get<double>());
  EXPECT_EQ(all[3]["text"], format_latency(m["ttft"]["p99_s"].get<double>()));
}

// The text of a key figure of the section `id`.
std::string figure_text(const nlohmann::json& report, const std::string& id,
                        const std::string& label) {
  for (const auto& s : report["sections"]) {
    if (s["id"] != id) continue;
    for (const auto& b : s["blocks"]) {
      if (b["type"] != "figures") continue;
      for (const auto& item : b["items"]) {
        if (item["label"] == label) return item["text"];
      }
    }
  }
  return "<no figure " + label + ">";
}

TEST_F(ReportTest, PeaksAreTheIntervalMaxima) {
  const TimelineRows t = read_timeline(one_ + "/timeline.csv");
  ASSERT_EQ(t.running_max.size(), t.size());
  const double peak_running = *std::max_element(t.running_max.begin(), t.running_max.end());
  const double peak_queue = *std::max_element(t.queue_depth_max.begin(), t.queue_depth_max.end());
  const double peak_kv = *std::max_element(t.kv_usage_max.begin(), t.kv_usage_max.end());
  EXPECT_GE(peak_running, *std::max_element(t.running.begin(), t.running.end()));
  const Rendered r = render({one_}, root_ / "peaks");
  EXPECT_EQ(figure_text(r.json, "fleet", "peak running"),
            format_count(static_cast<int64_t>(peak_running)));
  EXPECT_EQ(figure_text(r.json, "fleet", "peak queue depth"),
            format_count(static_cast<int64_t>(peak_queue)));
  EXPECT_EQ(figure_text(r.json, "fleet", "peak KV use"), format_percent(peak_kv));
}

TEST_F(ReportTest, LoadTableShowsEachPoolsBatchKvAndUtilization) {
  const Rendered r = render({one_}, root_ / "load");
  const nlohmann::json summary = read_json_file(one_ + "/summary.json");
  const nlohmann::json& load = summary["fleet"]["pools"][0]["load"];
  const nlohmann::json* table = find_table(r.json, "pool-load");
  ASSERT_NE(table, nullptr);
  const nlohmann::json& row = table->at("rows")[0];
  EXPECT_EQ(row[0]["text"], "h100");
  EXPECT_EQ(row[1]["text"], format_percent(summary["costs"]["pools"][0]["utilization"]));
  EXPECT_EQ(row[2]["text"], format_significant(load["mean_batch"].get<double>()));
  EXPECT_EQ(row[3]["value"], load["p99_batch"]);
  EXPECT_EQ(row[4]["value"], 64);  // the scenario's max_num_seqs
  EXPECT_EQ(row[5]["text"], format_percent(load["mean_kv_usage"].get<double>()));
  EXPECT_EQ(row[6]["text"], format_percent(load["peak_kv_usage"].get<double>()));
  EXPECT_EQ(row[7]["text"], format_percent(load["mfu"].get<double>()));
  EXPECT_EQ(row[8]["text"], format_percent(load["mbu"].get<double>()));
  EXPECT_EQ(figure_text(r.json, "latency", "SLO met, of finished"),
            format_percent(summary["metrics"]["finished_slo_share"].get<double>()));
}

TEST_F(ReportTest, MarkdownAndJsonCarryTheSameTables) {
  const Rendered r = render({one_, two_}, root_ / "agree");
  size_t num_rows = 0;
  for (const auto& s : r.json["sections"]) {
    EXPECT_NE(r.md.find(std::string("## ") + s["title"].get<std::string>() + "\n"),
              std::string::npos);
    for (const auto& b : s["blocks"]) {
      if (b["type"] == "table") {
        for (const auto& row : b["rows"]) {
          EXPECT_NE(r.md.find(md_row(row) + "\n"), std::string::npos) << md_row(row);
          ++num_rows;
        }
      } else if (b["type"] == "figures") {
        for (const auto& item : b["items"]) {
          const std::string line = std::string("- **") + item["label"].get<std::string>() +
                                   "**: " + item["text"].get<std::string>() + "\n";
          EXPECT_NE(r.md.find(line), std::string::npos) << line;
        }
      }
    }
  }
  EXPECT_GT(num_rows, 40u);
}

TEST_F(ReportTest, TwoRunsAreComparedWithRatiosAndVerdicts) {
  const Rendered r = render({one_, two_}, root_ / "compare");
  EXPECT_EQ(testing::tag_balance_error(r.html), "");
  const std::vector<std::string> ids = section_ids(r.json);
  EXPECT_EQ(ids.front(), "comparison");
  for (const char* id : {"overview-1", "latency-1", "cost-1", "overview-2", "fleet-2", "cost-2"}) {
    EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
  }
  const nlohmann::json* table = find_table(r.json, "comparison-table");
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->at("columns"), (nlohmann::json{"metric", "one-replica", "two-replicas",
                                                  "two-replicas / one-replica"}));
  const nlohmann::json* verdicts = find_table(r.json, "verdicts-2");
  ASSERT_NE(verdicts, nullptr);
  EXPECT_EQ(verdicts->at("title"), "Verdicts: two-replicas vs one-replica");
  ASSERT_EQ(verdicts->at("rows").size(), table->at("rows").size());
  const double a = read_json_file(one_ + "/summary.json")["costs"]["dollars"].get<double>();
  const double b = read_json_file(two_ + "/summary.json")["costs"]["dollars"].get<double>();
  const double p99_a =
      read_json_file(one_ + "/summary.json")["metrics"]["ttft"]["p99_s"].get<double>();
  const double p99_b =
      read_json_file(two_ + "/summary.json")["metrics"]["ttft"]["p99_s"].get<double>();
  bool seen_cost = false, seen_ttft = false;
  for (size_t i = 0; i < table->at("rows").size(); ++i) {
    const nlohmann::json& row = table->at("rows")[i];
    const std::string verdict_text = verdicts->at("rows")[i][1]["text"];
    EXPECT_EQ(verdicts->at("rows")[i][0]["text"], row[0]["text"]);
    if (row[0]["text"] == "total cost") {
      seen_cost = true;
      EXPECT_EQ(row[3]["text"], format_ratio(b / a));
      EXPECT_DOUBLE_EQ(row[3]["value"].get<double>(), b / a);
      EXPECT_TRUE(verdict_text.starts_with("two-replicas costs ")) << verdict_text;
    }
    if (row[0]["text"] == "p99 TTFT") {
      seen_ttft = true;
      EXPECT_EQ(row[1]["text"], format_latency(p99_a));
      EXPECT_EQ(row[2]["text"], format_latency(p99_b));
      EXPECT_EQ(row[3]["text"], format_ratio(p99_b / p99_a));
      EXPECT_TRUE(verdict_text.starts_with(p99_b < p99_a ? "two-replicas cuts p99 TTFT "
                                                         : "two-replicas raises p99 TTFT"))
          << verdict_text;
    }
  }
  EXPECT_TRUE(seen_cost);
  EXPECT_TRUE(seen_ttft);
}

// The two fixture runs replay the same requests: one shared workload section. A run with other
// requests (another seed) gets its own again.
TEST_F(ReportTest, IdenticalWorkloadsShareOneSection) {
  const std::vector<std::string> shared = section_ids(render({one_, two_}, root_ / "shared").json);
  EXPECT_EQ(std::count(shared.begin(), shared.end(), "workload"), 1);
  EXPECT_EQ(std::find(shared.begin(), shared.end(), "workload-1"), shared.end());
  EXPECT_EQ(std::find(shared.begin(), shared.end(), "workload-2"), shared.end());

  nlohmann::json other = testing::small_scenario(1, "other-seed");
  other["seed"] = 8;
  const std::string other_dir = testing::write_run_folder(other, root_ / "other-seed");
  const std::vector<std::string> apart =
      section_ids(render({one_, other_dir}, root_ / "apart").json);
  EXPECT_EQ(std::find(apart.begin(), apart.end(), "workload"), apart.end());
  EXPECT_NE(std::find(apart.begin(), apart.end(), "workload-1"), apart.end());
  EXPECT_NE(std::find(apart.begin(), apart.end(), "workload-2"), apart.end());
}

// A 90-second run's cost per day is labelled as what it is: an extrapolation.
TEST_F(ReportTest, CostPerDayOfAShortRunIsLabelledAnExtrapolation) {
  const std::string md = render({one_}, root_ / "short").md;
  const double duration_s =
      read_json_file(one_ + "/summary.json")["metrics"]["duration_s"].get<double>();
  ASSERT_LT(duration_s, 600.0);
  EXPECT_NE(
      md.find(fmt::format("cost per day (extrapolated from a {:.0f}-second run)", duration_s)),
      std::string::npos)
      << md;
  EXPECT_EQ(md.find("cost per day (this rate)"), std::string::npos);
}

TEST_F(ReportTest, SameInputsSameBytes) {
  const Rendered a = render({one_, two_}, root_ / "det_a");
  const Rendered b = render({one_, two_}, root_ / "det_b");
  EXPECT_EQ(a.html, b.html);
  EXPECT_EQ(a.md, b.md);
  EXPECT_EQ(a.json, b.json);
}

TEST_F(ReportTest, ValidationFolderRendersAFidelitySection) {
  const ScratchFolder scratch(testing::kScratch, "validation");
  const fs::path& dir = scratch.path();
  fs::copy(one_, dir / "predicted");
  fs::copy(two_, dir / "measured");
  std::ofstream(dir / "validation.json") << R"({
    "kind": "tidal-validation", "title": "Fidelity on H100",
    "predicted_run": "predicted", "measured_run": "measured",
    "metrics": [
      {"metric": "TTFT p50", "unit": "s", "predicted": 0.050, "measured": 0.040,
       "error": 0.25, "tolerance": 0.15, "pass": false},
      {"metric": "output throughput", "unit": "tok/s", "predicted": 980, "measured": 1000,
       "error": -0.02, "tolerance": 0.1, "pass": true}]})";
  const Rendered r = render({dir.string()}, root_ / "fidelity");
  EXPECT_EQ(section_ids(r.json), (std::vector<std::string>{"fidelity"}));
  EXPECT_EQ(testing::tag_balance_error(r.html), "");
  const nlohmann::json* table = find_table(r.json, "fidelity-errors");
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(md_row(table->at("rows")[0]),
            "| TTFT p50 | 50.0 ms | 40.0 ms | +25.0% | ±15.0% | no |");
  EXPECT_EQ(md_row(table->at("rows")[1]),
            "| output throughput | 980 tok/s | 1,000 tok/s | -2.0% | ±10.0% | yes |");
  for (const char* chart : {"fidelity-ttft", "fidelity-tpot", "fidelity-e2e"}) {
    EXPECT_NE(r.html.find(std::string("<figure id=\"") + chart + "\""), std::string::npos);
  }
}

TEST_F(ReportTest, PlanFolderRendersAPlanSection) {
  const ScratchFolder scratch(testing::kScratch, "plan");
  const fs::path& dir = scratch.path();
  std::ofstream(dir / "plan.json") << R"({
    "kind": "tidal-plan", "scenario": "chat", "pool": "h100", "mode": "cost",
    "slo": ["p99_ttft<=1 s"], "objective": "dollars", "latency_metric": "p99_ttft_s",
    "dimensions": ["num_replicas"], "cheapest": "b",
    "candidates": [
      {"id": "a", "index": 0, "config": {"num_replicas": 1}, "status": "slo_missed",
       "reason": "p99_ttft = 3 s > 1 s", "num_gpus": 1, "dollars": 1.0, "p99_ttft_s": 3.0,
       "slo_attainment": 0.5, "on_frontier": true},
      {"id": "b", "index": 1, "config": {"num_replicas": 2}, "status": "feasible",
       "reason": "", "num_gpus": 2, "dollars": 2.0, "p99_ttft_s": 0.4,
       "slo_attainment": 1.0, "on_frontier": true},
      {"id": "c", "index": 2, "config": {"num_replicas": 4}, "status": "feasible",
       "reason": "", "num_gpus": 4, "dollars": 4.0, "p99_ttft_s": 0.5,
       "slo_attainment": 1.0, "on_frontier": false}]})";
  const Rendered r = render({dir.string()}, root_ / "plan_report");
  EXPECT_EQ(section_ids(r.json), (std::vector<std::string>{"plan"}));
  EXPECT_EQ(testing::tag_balance_error(r.html), "");
  EXPECT_NE(r.md.find("- **cheapest meeting the SLO**: num_replicas=2\n"), std::string::npos);
  const nlohmann::json* frontier = find_table(r.json, "plan-frontier");
  ASSERT_NE(frontier, nullptr);
  ASSERT_EQ(frontier->at("rows").size(), 2u);
  EXPECT_EQ(md_row(frontier->at("rows")[0]),
            "| a | 1 | slo_missed | 1 | $1.00 | 3.00 s | 50.0% | yes | p99_ttft = 3 s > 1 s |");
  EXPECT_EQ(md_row(frontier->at("rows")[1]),
            "| b | 2 | feasible | 2 | $2.00 | 400 ms | 100.00% | yes |  |");
  EXPECT_NE(r.html.find("<figure id=\"plan-scatter\""), std::string::npos);
}

TEST_F(ReportTest, UnknownFolderIsAnInputError) {
  const ScratchFolder scratch(testing::kScratch, "empty");
  const fs::path& dir = scratch.path();
  try {
    build_report({dir.string()});
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              dir.string() +
                  ": not a run, validation or plan folder (no summary.json, validation.json or "
                  "plan.json)");
  }
}

}  // namespace
}  // namespace tidal::reports
