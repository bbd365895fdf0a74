#include <algorithm>

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

std::vector<Cell> candidate_row(const PlanData& plan, const PlanCandidate& c) {
  std::vector<Cell> row{text_cell(c.id)};
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
    figures.items.push_back({"cheapest meeting the SLO", text_cell(config_text(plan, *cheapest))});
    figures.items.push_back({cost_label(plan), dollars_cell(cheapest->cost)});
    figures.items.push_back({plan.latency_metric, latency_cell(cheapest->p99_latency_s)});
  } else {
    figures.items.push_back({"cheapest meeting the SLO", text_cell("none: no candidate meets it")});
  }
  section.blocks.push_back(std::move(figures));

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
