#include <algorithm>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "reports/cells.h"
#include "reports/chart_block.h"
#include "reports/folder_sections.h"
#include "reports/format.h"

namespace tidal::reports {
namespace {

std::string value_text(const nlohmann::ordered_json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// "gpu=H100-SXM, tp=2".
std::string config_text(const PlanData& plan, const PlanCandidate& c) {
  std::string text;
  for (const std::string& d : plan.dimensions) {
    if (!c.config.contains(d)) continue;
    if (!text.empty()) text += ", ";
    text += d + "=" + value_text(c.config.at(d));
  }
  return text.empty() ? "(scenario as given)" : text;
}

std::string cost_label(const PlanData& plan) {
  return plan.objective == "dollars" ? "cost of the trace" : "$ / 1M tokens at capacity";
}

// The candidate's name ("4xH100-SXM tp2 fp8"); older plan folders have none: the id.
std::string name_of(const PlanCandidate& c) {
  return c.name.empty() ? c.id : c.name;
}

std::string dtype_of(const PlanCandidate& c) {
  if (c.weight_dtype.empty()) return "n/a";
  if (c.kv_dtype.empty() || c.kv_dtype == c.weight_dtype) return c.weight_dtype;
  return c.weight_dtype + " (kv " + c.kv_dtype + ")";
}

Cell optional_count(const std::optional<int64_t>& v) {
  return v ? count_cell(*v) : Cell{"n/a", nullptr};
}

Cell ms_cell(const std::optional<double>& seconds) {
  return seconds ? significant_cell(*seconds * 1e3) : Cell{"n/a", nullptr};
}

std::vector<Cell> candidate_row(const PlanData& plan, const PlanCandidate& c) {
  std::vector<Cell> row{text_cell(name_of(c))};
  for (const std::string& d : plan.dimensions) {
    row.push_back(c.config.contains(d) ? text_cell(value_text(c.config.at(d))) : text_cell(""));
  }
  row.push_back(text_cell(c.status));
  row.push_back(c.num_gpus ? count_cell(*c.num_gpus) : Cell{"n/a", nullptr});
  row.push_back(dollars_cell(c.cost));
  row.push_back(latency_cell(c.p99_latency_s));
  row.push_back(percent_cell(c.slo_attainment));
  if (plan.mode == "capacity") row.push_back(significant_cell(c.rate_scale));
  row.push_back(text_cell(c.on_frontier ? "yes" : ""));
  row.push_back(text_cell(c.reason));
  return row;
}

// The columns of `tidal plan`'s console table (plan/plan_table.h).
std::vector<std::string> ranked_columns(const PlanData& plan) {
  std::vector<std::string> columns{"rank",     "candidate", "GPU", "GPUs", "TP",
                                   "replicas", "dtype",     "$/h", "$/day"};
  if (plan.mode == "capacity") {
    columns.push_back("$/1M tok");
    columns.push_back("rate scale");
  } else {
    columns.push_back("$ trace");
  }
  for (const char* c : {"SLO attainment", "p99 TTFT ms", "p99 TPOT ms", "SLO"}) {
    columns.push_back(c);
  }
  return columns;
}

std::vector<Cell> ranked_row(const PlanData& plan, const PlanCandidate& c) {
  std::vector<Cell> row{c.rank ? count_cell(*c.rank) : text_cell("-"),
                        text_cell(name_of(c)),
                        text_cell(c.gpu.empty() ? "n/a" : c.gpu),
                        optional_count(c.num_gpus),
                        optional_count(c.tp),
                        optional_count(c.num_replicas),
                        text_cell(dtype_of(c)),
                        dollars_cell(c.dollars_per_hour),
                        dollars_cell(c.dollars_per_day)};
  if (plan.mode == "capacity") {
    row.push_back(dollars_cell(c.dollars_per_1m_tokens));
    row.push_back(c.rate_scale ? number_cell(*c.rate_scale, format_significant(*c.rate_scale) + "x")
                               : Cell{"n/a", nullptr});
  } else {
    row.push_back(dollars_cell(c.dollars));
  }
  row.push_back(percent_cell(c.slo_attainment));
  row.push_back(ms_cell(c.p99_ttft_s));
  row.push_back(ms_cell(c.p99_tpot_s));
  row.push_back(text_cell(c.status == "feasible" ? "met" : "missed: " + c.reason));
  return row;
}

// Simulated candidates in rank order: plan.json's `ranking` (older folders: index order).
std::vector<const PlanCandidate*> ranked(const PlanData& plan) {
  std::vector<const PlanCandidate*> order;
  if (plan.ranking.empty()) {
    for (const PlanCandidate& c : plan.candidates) order.push_back(&c);
  } else {
    for (const std::string& id : plan.ranking) {
      for (const PlanCandidate& c : plan.candidates) {
        if (c.id == id) order.push_back(&c);
      }
    }
  }
  std::erase_if(order, [](const PlanCandidate* c) { return c->status == "invalid"; });
  return order;
}

}  // namespace

Section plan_section(const PlanData& plan, const std::string& id_suffix) {
  Section section{"plan" + id_suffix, "Capacity plan: " + plan.scenario, {}};
  std::string slo;
  for (const std::string& s : plan.slo) slo += (slo.empty() ? "" : " and ") + s;
  section.blocks.push_back(Paragraph{fmt::format(
      "Plan folder {}: {} candidates in mode \"{}\", SLO {}; ranked by {}, latency "
      "axis {}.",
      plan.dir, plan.candidates.size(), plan.mode, slo, cost_label(plan), plan.latency_metric)});
  int64_t num_feasible = 0, num_missed = 0, num_invalid = 0;
  for (const PlanCandidate& c : plan.candidates) {
    num_feasible += c.status == "feasible";
    num_missed += c.status == "slo_missed";
    num_invalid += c.status == "invalid";
  }
  const auto cheapest = std::find_if(plan.candidates.begin(), plan.candidates.end(),
                                     [&](const PlanCandidate& c) { return c.id == plan.cheapest; });
  KeyFigures figures{{{"candidates", count_cell(static_cast<int64_t>(plan.candidates.size()))},
                      {"meet the SLO", count_cell(num_feasible)},
                      {"miss the SLO", count_cell(num_missed)},
                      {"invalid", count_cell(num_invalid)}}};
  if (cheapest != plan.candidates.end()) {
    figures.items.push_back(
        {"cheapest meeting the SLO",
         text_cell(cheapest->name.empty() ? config_text(plan, *cheapest) : cheapest->name)});
    if (cheapest->num_gpus) figures.items.push_back({"GPUs", count_cell(*cheapest->num_gpus)});
    if (cheapest->dollars_per_hour)
      figures.items.push_back({"$ per hour", dollars_cell(cheapest->dollars_per_hour)});
    if (cheapest->dollars_per_day)
      figures.items.push_back(
          {"$ per day at the trace's rate", dollars_cell(cheapest->dollars_per_day)});
    figures.items.push_back({cost_label(plan), dollars_cell(cheapest->cost)});
    figures.items.push_back({plan.latency_metric, latency_cell(cheapest->p99_latency_s)});
    figures.items.push_back({"SLO attainment", percent_cell(cheapest->slo_attainment)});
  } else {
    figures.items.push_back({"cheapest meeting the SLO", text_cell("none: no candidate meets it")});
  }
  section.blocks.push_back(std::move(figures));
  if (!plan.ranking_rule.empty()) {
    section.blocks.push_back(Paragraph{
        "Candidates are named by their settings (GPUs x GPU, TP, weight dtype, then the other "
        "dimensions' values); the id is plan.json's. The table is `tidal plan`'s: " +
        plan.ranking_rule +
        ". $/h is the fleet's GPUs x $/GPU-hour; $/day is the run's dollars over its duration "
        "x 24 h, the trace's rate held for a day (an extrapolation for a short trace)."});
  }
  Table ranked_table{"plan-ranked" + id_suffix, "Ranked candidates", ranked_columns(plan), {}};
  for (const PlanCandidate* c : ranked(plan)) ranked_table.rows.push_back(ranked_row(plan, *c));
  section.blocks.push_back(std::move(ranked_table));

  XYChart scatter{"Cost vs " + plan.latency_metric,
                  {plan.latency_metric + " (log scale)", AxisUnit::seconds, true},
                  {cost_label(plan), AxisUnit::dollars}};
  Series meets{"meets the SLO", {}, {}, SeriesStyle::points};
  Series misses{"misses the SLO", {}, {}, SeriesStyle::points};
  Series frontier{"Pareto frontier", {}, {}, SeriesStyle::line};
  std::vector<const PlanCandidate*> on_frontier;
  for (const PlanCandidate& c : plan.candidates) {
    if (!c.cost || !c.p99_latency_s) continue;
    Series& s = c.status == "feasible" ? meets : misses;
    s.x.push_back(*c.p99_latency_s);
    s.y.push_back(*c.cost);
    if (c.on_frontier) on_frontier.push_back(&c);
  }
  std::sort(on_frontier.begin(), on_frontier.end(),
            [](const auto* a, const auto* b) { return *a->p99_latency_s < *b->p99_latency_s; });
  for (const PlanCandidate* c : on_frontier) {
    frontier.x.push_back(*c->p99_latency_s);
    frontier.y.push_back(*c->cost);
  }
  scatter.series = {meets, misses, frontier};
  section.blocks.push_back(xy_chart_block("plan-scatter" + id_suffix, scatter));

  std::vector<std::string> columns{"candidate"};
  columns.insert(columns.end(), plan.dimensions.begin(), plan.dimensions.end());
  for (const char* c : {"status", "GPUs", "cost", "p99 latency", "SLO attainment"}) {
    columns.push_back(c);
  }
  if (plan.mode == "capacity") columns.push_back("max rate scale");
  columns.push_back("frontier");
  columns.push_back("reason");
  Table frontier_table{
      "plan-frontier" + id_suffix, "Pareto frontier (cost vs latency)", columns, {}};
  // The table lists the frontier by ascending cost, as plan.json does.
  for (auto it = on_frontier.rbegin(); it != on_frontier.rend(); ++it) {
    frontier_table.rows.push_back(candidate_row(plan, **it));
  }
  section.blocks.push_back(std::move(frontier_table));
  Table all{"plan-candidates" + id_suffix, "Every candidate", columns, {}};
  for (const PlanCandidate& c : plan.candidates) all.rows.push_back(candidate_row(plan, c));
  section.blocks.push_back(std::move(all));
  return section;
}

}  // namespace tidal::reports
