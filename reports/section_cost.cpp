// Cost: totals, $ per 1M input/output tokens, tokens per dollar, the busy/idle split, cost by
// lifecycle state and by pool, spend over time, and spot savings when the run has them.
#include "reports/cells.h"
#include "reports/chart_block.h"
#include "reports/format.h"
#include "reports/sections.h"

namespace tidal::reports {
namespace {

struct StateCost {
  std::string source;  // where the split comes from, for the table title
  std::vector<std::pair<std::string, double>> dollars;
};

// Exact figures when the run has them (summary.json costs.by_state, else timeline.csv
// dollars_<state> columns); otherwise each interval's dollars split over the billed states by
// the replica counts at its end (docs/report.md, "Cost").
StateCost cost_by_state(const RunData& run) {
  if (!run.summary.dollars_by_state.empty()) {
    StateCost cost{"summary.json costs.dollars_by_state", run.summary.dollars_by_state};
    if (run.summary.dollars_granularity) {
      cost.dollars.emplace_back("billing rounding", *run.summary.dollars_granularity);
    }
    return cost;
  }
  const TimelineRows& t = run.timeline;
  StateCost cost;
  if (!t.dollars_by_state.empty()) {
    cost.source = "timeline.csv dollars_<state> columns";
    for (const NamedSeries& s : t.dollars_by_state) {
      double sum = 0.0;
      for (double v : s.values) sum += v;
      cost.dollars.emplace_back(s.name, sum);
    }
    return cost;
  }
  cost.source = "estimated from replica counts at interval ends";
  std::vector<const NamedSeries*> billed;
  for (const NamedSeries* s : distinct_replica_states(t)) {
    if (s->name != "stopped") billed.push_back(s);
  }
  for (const NamedSeries* s : billed) cost.dollars.emplace_back(s->name, 0.0);
  double unattributed = 0.0;
  for (size_t i = 0; i < t.size(); ++i) {
    double num_billed = 0.0;
    for (const NamedSeries* s : billed) num_billed += s->values[i];
    if (num_billed <= 0.0) {
      unattributed += t.dollars[i];
      continue;
    }
    for (size_t k = 0; k < billed.size(); ++k) {
      cost.dollars[k].second += t.dollars[i] * billed[k]->values[i] / num_billed;
    }
  }
  if (unattributed > 0.0) cost.dollars.emplace_back("unattributed", unattributed);
  return cost;
}

}  // namespace

Section cost_section(const RunSection& r) {
  const RunSummary& s = r.run.summary;
  const TimelineRows& t = r.run.timeline;
  Section section{"cost" + r.id_suffix, "Cost" + r.title_suffix, {}};
  if (!s.priced) {
    section.blocks.push_back(Paragraph{
        "Not priced: this is an engine run, and an engine run records no GPU type and no "
        "price per GPU-hour (its summary.json has no costs block; the dollars columns of its "
        "timeline.csv are 0). There is no total, no $ / 1M tokens and no spend over time to "
        "show. To price this workload, simulate it (tidal simulate) on a pool with a GPU "
        "and a price."});
    return section;
  }

  double timeline_dollars = 0.0, busy_dollars = 0.0;
  for (size_t i = 0; i < t.size(); ++i) {
    timeline_dollars += t.dollars[i];
    busy_dollars += t.dollars[i] * t.utilization[i];
  }
  const std::optional<double> idle = idle_share(t);
  section.blocks.push_back(KeyFigures{{
      {"total cost", dollars_cell(s.dollars)},
      {cost_per_day_label(s), dollars_cell(dollars_per_day(s))},
      {"GPU-hours", significant_cell(s.gpu_hours)},
      {"$ / 1M input tokens", dollars_cell(s.dollars_per_1m_input_tokens)},
      {"$ / 1M output tokens", dollars_cell(s.dollars_per_1m_output_tokens)},
      {"$ / 1M tokens", dollars_cell(s.dollars_per_1m_tokens)},
      {"tokens per $", significant_cell(tokens_per_dollar(s))},
      {"output tokens per $", significant_cell(output_tokens_per_dollar(s))},
      {"idle share of spend", percent_cell(idle)},
  }});
  KeyFigures fleet_figures;
  const std::optional<SpotSavings> spot = spot_savings(s);
  if (spot) {
    fleet_figures.items.push_back(
        {spot->estimated ? "spot savings (estimate, vs on-demand)" : "spot savings (vs on-demand)",
         dollars_cell(spot->dollars)});
  }
  if (s.peak_sized_dollars) {
    fleet_figures.items.push_back({"peak-sized fleet cost", dollars_cell(s.peak_sized_dollars)});
    fleet_figures.items.push_back({"saved vs peak-sized", percent_cell(s.peak_sized_savings)});
  }
  if (!fleet_figures.items.empty()) section.blocks.push_back(std::move(fleet_figures));
  std::string notes =
      "Idle share = spend on provisioned GPU time not running a batch step: the sum over "
      "timeline intervals of dollars x (1 - busy share), over total dollars. Cost per day "
      "extrapolates the run's average spend rate to 24 h. Peak-sized fleet = the pools' peak "
      "replica counts kept for the whole run (summary.json costs.peak_sized_dollars).";
  if (spot && spot->estimated) {
    notes +=
        " Spot savings are an estimate (this run folder has no costs.spot_savings_dollars): "
        "each spot pool's dollars re-priced at its on-demand price, minus what they cost.";
  } else if (spot) {
    notes +=
        " Spot savings = the spot-billed time at its pool's on-demand price, minus what it "
        "cost, from the billing ledger (summary.json costs.spot_savings_dollars).";
  }
  section.blocks.push_back(Paragraph{notes});

  const StateCost by_state = cost_by_state(r.run);
  double state_total = 0.0;
  for (const auto& [state, dollars] : by_state.dollars) state_total += dollars;
  Table states{"cost-by-state" + r.id_suffix,
               "Cost by lifecycle state (" + by_state.source + ")",
               {"state", "dollars", "share"},
               {}};
  for (const auto& [state, dollars] : by_state.dollars) {
    states.rows.push_back({text_cell(state), dollars_cell(dollars),
                           percent_cell(state_total > 0 ? dollars / state_total : 0.0)});
  }
  states.rows.push_back(
      {text_cell("busy (running steps)"), dollars_cell(busy_dollars),
       percent_cell(timeline_dollars > 0 ? busy_dollars / timeline_dollars : 0.0)});
  states.rows.push_back({text_cell("idle (provisioned, no step)"),
                         dollars_cell(timeline_dollars - busy_dollars), percent_cell(idle)});
  section.blocks.push_back(std::move(states));
  if (!s.dollars_by_rate_class.empty()) {
    Table classes{"cost-by-price-class" + r.id_suffix,
                  "Cost by price class",
                  {"price class", "dollars", "share"},
                  {}};
    for (const auto& [name, dollars] : s.dollars_by_rate_class) {
      classes.rows.push_back({text_cell(name), dollars_cell(dollars),
                              percent_cell(s.dollars > 0 ? dollars / s.dollars : 0.0)});
    }
    section.blocks.push_back(std::move(classes));
  }

  Table pools{
      "cost-by-pool" + r.id_suffix,
      "Cost by pool",
      {"pool", "GPU", "GPUs", "$ / GPU-hour", "GPU-hours", "dollars", "share", "busy share"},
      {}};
  for (const PoolFigures& p : s.pools) {
    pools.rows.push_back(
        {text_cell(p.name), text_cell(p.gpu), count_cell(p.num_gpus),
         dollars_cell(p.price_per_gpu_hour), significant_cell(p.gpu_hours), dollars_cell(p.dollars),
         percent_cell(s.dollars > 0 ? p.dollars / s.dollars : 0.0), percent_cell(p.utilization)});
  }
  section.blocks.push_back(std::move(pools));

  const TimeAxis time = time_axis_for(s.duration_s);
  XYChart cumulative{"Cumulative cost", time.axis(), {"dollars", AxisUnit::dollars}};
  XYChart rate{"Spend rate", time.axis(), {"$ per hour", AxisUnit::dollars}};
  Series cum{"cumulative $", {}, {}, SeriesStyle::line};
  Series per_hour{"$ per hour", {}, {}, SeriesStyle::step};
  if (t.size() > 0) {
    cum.x.push_back(t.start_s[0] / time.divisor);
    cum.y.push_back(t.cumulative_dollars[0] - t.dollars[0]);
  }
  for (size_t i = 0; i < t.size(); ++i) {
    cum.x.push_back(t.end_s[i] / time.divisor);
    cum.y.push_back(t.cumulative_dollars[i]);
    per_hour.x.push_back(t.start_s[i] / time.divisor);
    per_hour.y.push_back(t.dollars[i] / (t.end_s[i] - t.start_s[i]) * 3600.0);
  }
  if (t.size() > 0) {
    per_hour.x.push_back(t.end_s.back() / time.divisor);
    per_hour.y.push_back(per_hour.y.back());
  }
  cumulative.series.push_back(std::move(cum));
  rate.series.push_back(std::move(per_hour));
  section.blocks.push_back(xy_chart_block("cumulative-cost" + r.id_suffix, cumulative));
  section.blocks.push_back(xy_chart_block("spend-rate" + r.id_suffix, rate));
  return section;
}

}  // namespace tidal::reports
