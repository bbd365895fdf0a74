#include "reports/folder_data.h"

#include <filesystem>

#include <fmt/format.h>

#include "base/input_error.h"
#include "reports/json_fields.h"

namespace tidal::reports {
namespace {

std::optional<double> optional_number(const JsonView& v, std::string_view key) {
  return v.has(key) ? std::optional(v.number(key)) : std::nullopt;
}

std::string expect_kind(const JsonView& doc, const std::string& kind) {
  const std::string found = doc.string("kind");
  if (found != kind) doc.fail("kind", fmt::format("expected \"{}\", got \"{}\"", kind, found));
  return found;
}

ValidationMetric read_validation_metric(const JsonView& m) {
  using M = ValidationMetric;
  ValidationMetric row;
  read_fields(m, row, "metric", &M::metric, "unit", &M::unit, "predicted", &M::predicted,
              "measured", &M::measured, "error", &M::error);
  row.tolerance = optional_number(m, "tolerance");
  row.pass = m.boolean("pass");
  return row;
}

ValidationSide load_side(const std::string& dir) {
  const std::filesystem::path root(dir);
  if (!std::filesystem::is_directory(root)) throw InputError(fmt::format("{}: not a folder", dir));
  ValidationSide side;
  side.dir = dir;
  const std::string summary_path = (root / "summary.json").string();
  const nlohmann::json summary = read_json_file(summary_path);
  side.ttft = read_latency_figures(JsonView(summary, summary_path).at("metrics"), "ttft");
  side.requests = read_requests((root / "requests.csv").string());
  return side;
}

}  // namespace

bool is_validation_folder(const std::string& dir) {
  return std::filesystem::is_regular_file(std::filesystem::path(dir) / "validation.json");
}

ValidationData load_validation(const std::string& dir) {
  const std::filesystem::path root(dir);
  const std::string path = (root / "validation.json").string();
  const nlohmann::json json = read_json_file(path);
  const JsonView doc(json, path);
  expect_kind(doc, "tidal-validation");
  ValidationData v;
  v.dir = dir;
  v.title = doc.has("title") ? doc.string("title") : std::string("Simulator fidelity");
  v.predicted = load_side((root / doc.string("predicted_run")).string());
  v.measured = load_side((root / doc.string("measured_run")).string());
  v.metrics = read_each(doc, "metrics", read_validation_metric);
  return v;
}

bool is_plan_folder(const std::string& dir) {
  return std::filesystem::is_regular_file(std::filesystem::path(dir) / "plan.json");
}

PlanData load_plan(const std::string& dir) {
  const std::string path = (std::filesystem::path(dir) / "plan.json").string();
  const nlohmann::json json = read_json_file(path);
  const JsonView doc(json, path);
  expect_kind(doc, "tidal-plan");
  PlanData plan;
  plan.dir = dir;
  read_fields(doc, plan, "scenario", &PlanData::scenario, "mode", &PlanData::mode, "objective",
              &PlanData::objective, "latency_metric", &PlanData::latency_metric);
  plan.slo = doc.strings("slo");
  plan.dimensions = doc.strings("dimensions");
  if (doc.has("cheapest")) plan.cheapest = doc.string("cheapest");
  if (doc.has("ranking_rule")) plan.ranking_rule = doc.string("ranking_rule");
  if (doc.has("ranking")) plan.ranking = doc.strings("ranking");
  plan.candidates = read_each(doc, "candidates", [&](const JsonView& c) {
    PlanCandidate p;
    p.id = c.string("id");
    p.index = c.integer("index");
    p.config = nlohmann::ordered_json(c.at("config").value());
    p.status = c.string("status");
    if (p.status != "feasible" && p.status != "slo_missed" && p.status != "invalid") {
      c.fail("status", fmt::format("unknown status \"{}\"", p.status));
    }
    p.reason = c.string("reason");
    p.cost = optional_number(c, plan.objective);
    p.p99_latency_s = optional_number(c, plan.latency_metric);
    p.slo_attainment = optional_number(c, "slo_attainment");
    p.rate_scale = optional_number(c, "rate_scale");
    if (c.has("num_gpus")) p.num_gpus = c.integer("num_gpus");
    p.on_frontier = c.boolean("on_frontier");
    if (c.has("name")) p.name = c.string("name");
    if (c.has("gpu")) p.gpu = c.string("gpu");
    if (c.has("weight_dtype")) p.weight_dtype = c.string("weight_dtype");
    if (c.has("kv_dtype")) p.kv_dtype = c.string("kv_dtype");
    if (c.has("tp")) p.tp = c.integer("tp");
    if (c.has("num_replicas")) p.num_replicas = c.integer("num_replicas");
    if (c.has("rank")) p.rank = c.integer("rank");
    p.dollars = optional_number(c, "dollars");
    p.dollars_per_hour = optional_number(c, "dollars_per_hour");
    p.dollars_per_day = optional_number(c, "dollars_per_day");
    p.dollars_per_1m_tokens = optional_number(c, "dollars_per_1m_tokens");
    p.p99_ttft_s = optional_number(c, "p99_ttft_s");
    p.p99_tpot_s = optional_number(c, "p99_tpot_s");
    return p;
  });
  return plan;
}

}  // namespace tidal::reports
