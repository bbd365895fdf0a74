#include "tests/reports/run_fixture.h"

#include <fstream>
#include <sstream>
#include <vector>

#include "reports/report.h"
#include "sim/metrics.h"
#include "sim/run_output.h"
#include "sim/simulator.h"

namespace tidal::reports::testing {

nlohmann::json small_scenario(int num_replicas, const std::string& name) {
  nlohmann::json scenario = nlohmann::json::parse(R"({
    "seed": 7,
    "timeline_interval_s": 5,
    "workloads": [
      {"name": "chat", "tenant": "alpha", "slo_class": "interactive",
       "slo": {"ttft_s": 0.5, "tpot_s": 0.05},
       "generator": {"kind": "poisson", "rate": 6, "duration_s": 90,
                     "prompt": {"dist": "lognormal", "median": 600, "sigma": 0.6, "max": 4000},
                     "output": {"dist": "lognormal", "median": 150, "sigma": 0.5, "max": 600}}},
      {"name": "enrich", "tenant": "beta", "slo_class": "batch", "slo": {"e2e_s": 60},
       "generator": {"kind": "poisson", "rate": 3, "duration_s": 90,
                     "prompt": {"dist": "lognormal", "median": 1500, "sigma": 0.5, "max": 6000},
                     "output": {"dist": "lognormal", "median": 300, "sigma": 0.4, "max": 800}}}
    ],
    "fleet": {"pools": [{"name": "h100", "model": "llama-3-8b", "gpu": "H100-SXM", "tp": 1,
                         "num_replicas": 1,
                         "scheduler": {"policy": "continuous", "max_num_seqs": 64}}]}
  })");
  scenario["name"] = name;
  scenario["fleet"]["pools"][0]["num_replicas"] = num_replicas;
  return scenario;
}

std::string write_run_folder(const nlohmann::json& scenario_json,
                             const std::filesystem::path& dir) {
  const sim::Scenario scenario = sim::parse_scenario(scenario_json, "test.json", "");
  sim::RunResult result = sim::run_scenario(scenario);
  const sim::RunMetrics metrics = sim::compute_metrics(scenario, result);
  sim::write_run_output(dir.string(), scenario, result, metrics);
  return dir.string();
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string tag_balance_error(const std::string& markup) {
  std::vector<std::string> open;
  size_t i = 0;
  while ((i = markup.find('<', i)) != std::string::npos) {
    if (markup.compare(i, 4, "<!--") == 0) {
      const size_t end = markup.find("-->", i);
      if (end == std::string::npos) return "unterminated comment";
      i = end + 3;
      continue;
    }
    const size_t end = markup.find('>', i);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(i);
    const std::string tag = markup.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.empty()) return "empty tag";
    if (tag[0] == '!') continue;  // <!DOCTYPE html>
    if (tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (open.empty()) return "</" + name + "> closes nothing";
      if (open.back() != name) return "</" + name + "> closes <" + open.back() + ">";
      open.pop_back();
      continue;
    }
    if (tag.back() == '/') continue;  // <meta .../>
    const size_t name_end = tag.find_first_of(" \t\n");
    const std::string name = tag.substr(0, name_end);
    // Raw text elements: skip to their end tag.
    if (name == "style" || name == "script") {
      const size_t close = markup.find("</" + name + ">", i);
      if (close == std::string::npos) return "<" + name + "> never closed";
      i = close + name.size() + 3;
      continue;
    }
    open.push_back(name);
  }
  if (!open.empty()) return "<" + open.back() + "> never closed";
  return "";
}

nlohmann::json section_of(const std::string& run_dir, const std::filesystem::path& out,
                          const std::string& id) {
  const ReportPaths paths = write_report({run_dir}, (out / "report.html").string());
  const nlohmann::json report = nlohmann::json::parse(read_text(paths.json));
  for (const auto& s : report["sections"]) {
    if (s["id"] == id) return s;
  }
  return nullptr;
}

std::map<std::string, std::string> figures_of(const nlohmann::json& section) {
  std::map<std::string, std::string> figures;
  for (const auto& b : section["blocks"]) {
    if (b["type"] != "figures") continue;
    for (const auto& item : b["items"]) figures[item["label"]] = item["text"];
  }
  return figures;
}

}  // namespace tidal::reports::testing
