// Several runs side by side: a table of headline metrics with each run's ratio against the
// first run and a one-line verdict per metric, plus overlaid CDFs and spend curves.
#include <fmt/format.h>

#include "reports/cells.h"
#include "reports/chart_block.h"
#include "reports/distribution.h"
#include "reports/format.h"
#include "reports/sections.h"
#include "reports/verdict.h"

namespace tidal::reports {
namespace {

struct ComparedMetric {
  MetricValue metric;
  std::optional<double> (*value)(const RunData&);
  bool needs_price = false;  // n/a for runs without costs (engine runs)
};

std::optional<double> value_of(const ComparedMetric& m, const RunData& run) {
  if (m.needs_price && !run.summary.priced) return std::nullopt;
  return m.value(run);
}

std::string format_count_double(double v) {
  return format_count(static_cast<int64_t>(v));
}
std::string format_req_rate(double v) {
  return format_rate(v, "req/s");
}
std::string format_tok_rate(double v) {
  return format_rate(v, "tok/s");
}

const std::vector<ComparedMetric>& compared_metrics() {
  static const std::vector<ComparedMetric> metrics{
      {{"requests", "", MetricKind::neutral, format_count_double},
       [](const RunData& r) -> std::optional<double> {
         return static_cast<double>(r.summary.num_requests);
       }},
      {{"SLO attainment", "", MetricKind::share, format_percent},
       [](const RunData& r) -> std::optional<double> { return r.summary.slo_attainment; }},
      {{"goodput", "", MetricKind::amount, format_req_rate},
       [](const RunData& r) -> std::optional<double> { return r.summary.goodput_rps; }},
      {{"output throughput", "", MetricKind::amount, format_tok_rate},
       [](const RunData& r) -> std::optional<double> { return r.summary.output_tokens_per_s; }},
      {{"p50 TTFT", "", MetricKind::latency, format_latency},
       [](const RunData& r) { return r.summary.ttft.p50_s; }},
      {{"p99 TTFT", "", MetricKind::latency, format_latency},
       [](const RunData& r) { return r.summary.ttft.p99_s; }},
      {{"p99 TPOT", "", MetricKind::latency, format_latency},
       [](const RunData& r) { return r.summary.tpot.p99_s; }},
      {{"p99 E2E", "", MetricKind::latency, format_latency},
       [](const RunData& r) { return r.summary.e2e.p99_s; }},
      {{"total cost", "in total", MetricKind::cost, format_dollars},
       [](const RunData& r) -> std::optional<double> { return r.summary.dollars; },
       true},
      {{"cost per day (extrapolated)", "per day", MetricKind::cost, format_dollars},
       [](const RunData& r) -> std::optional<double> { return dollars_per_day(r.summary); },
       true},
      {{"$ / 1M input tokens", "per 1M input tokens", MetricKind::cost, format_dollars},
       [](const RunData& r) { return r.summary.dollars_per_1m_input_tokens; },
       true},
      {{"$ / 1M output tokens", "per 1M output tokens", MetricKind::cost, format_dollars},
       [](const RunData& r) { return r.summary.dollars_per_1m_output_tokens; },
       true},
      {{"output tokens per $", "", MetricKind::amount, format_significant},
       [](const RunData& r) { return output_tokens_per_dollar(r.summary); },
       true},
      {{"GPU-hours", "", MetricKind::neutral, format_significant},
       [](const RunData& r) -> std::optional<double> { return r.summary.gpu_hours; },
       true},
      {{"busy share", "", MetricKind::share, format_percent},
       [](const RunData& r) -> std::optional<double> { return r.summary.utilization; }},
  };
  return metrics;
}

Cell value_cell(const MetricValue& m, const std::optional<double>& v) {
  if (!v) return Cell{"n/a", nullptr};
  return number_cell(*v, m.format(*v));
}

Chart overlay_cdf(const std::vector<RunData>& runs, const std::string& id, const std::string& title,
                  std::vector<double> RequestRows::*column) {
  XYChart chart{title + " by run", {title + " (log scale)", AxisUnit::seconds, true}, share_axis()};
  for (const RunData& run : runs) {
    chart.series.push_back(cdf_series(run.label, sorted_finite(run.requests.*column)));
  }
  return xy_chart_block(id, chart);
}

}  // namespace

Section comparison_section(const std::vector<RunData>& runs) {
  Section section{"comparison", "Comparison", {}};
  const RunData& base = runs.front();
  section.blocks.push_back(Paragraph{"Each run against the first (" + base.label +
                                     "): ratio = run / " + base.label +
                                     "; shares compare in percentage points."});
  Table table{"comparison-table", "Side by side", {"metric", base.label}, {}};
  for (size_t k = 1; k < runs.size(); ++k) {
    table.columns.push_back(runs[k].label);
    table.columns.push_back(fmt::format("{} / {}", runs[k].label, base.label));
  }
  std::vector<Table> verdicts;  // one per compared run
  for (size_t k = 1; k < runs.size(); ++k) {
    verdicts.push_back(Table{fmt::format("verdicts-{}", k + 1),
                             fmt::format("Verdicts: {} vs {}", runs[k].label, base.label),
                             {"metric", "verdict"},
                             {}});
  }
  for (const ComparedMetric& m : compared_metrics()) {
    const std::optional<double> base_value = value_of(m, base);
    std::vector<Cell> row{text_cell(m.metric.name), value_cell(m.metric, base_value)};
    for (size_t k = 1; k < runs.size(); ++k) {
      const std::optional<double> v = value_of(m, runs[k]);
      row.push_back(value_cell(m.metric, v));
      row.push_back(ratio_cell(ratio_of(base_value, v)));
      verdicts[k - 1].rows.push_back(
          {text_cell(m.metric.name),
           text_cell(verdict(m.metric, base.label, base_value, runs[k].label, v))});
    }
    table.rows.push_back(std::move(row));
  }
  section.blocks.push_back(std::move(table));
  for (Table& t : verdicts) section.blocks.push_back(std::move(t));

  section.blocks.push_back(overlay_cdf(runs, "comparison-ttft-cdf", "TTFT", &RequestRows::ttft_s));
  section.blocks.push_back(
      overlay_cdf(runs, "comparison-e2e-cdf", "E2E latency", &RequestRows::e2e_s));

  std::vector<const RunData*> priced;
  std::string unpriced;
  for (const RunData& run : runs) {
    if (run.summary.priced) {
      priced.push_back(&run);
    } else {
      unpriced += (unpriced.empty() ? "" : ", ") + run.label;
    }
  }
  if (!unpriced.empty()) {
    section.blocks.push_back(Paragraph{
        "Not priced: " + unpriced +
        " (engine runs record no GPU type or price); their cost metrics read n/a and they are "
        "left out of the cost charts."});
  }
  if (priced.empty()) return section;
  double longest_s = 0.0;
  for (const RunData* run : priced) longest_s = std::max(longest_s, run->summary.duration_s);
  const TimeAxis time = time_axis_for(longest_s);
  XYChart spend{"Cumulative cost by run", time.axis(), {"dollars", AxisUnit::dollars}};
  BarChart unit_cost{"$ per 1M output tokens by run", {"$ / 1M output tokens", AxisUnit::dollars}};
  Series bars{"$ / 1M output tokens", {}, {}, SeriesStyle::line};
  for (const RunData* priced_run : priced) {
    const RunData& run = *priced_run;
    Series s{run.label, {}, {}, SeriesStyle::line};
    for (size_t i = 0; i < run.timeline.size(); ++i) {
      s.x.push_back(run.timeline.end_s[i] / time.divisor);
      s.y.push_back(run.timeline.cumulative_dollars[i]);
    }
    spend.series.push_back(std::move(s));
    unit_cost.categories.push_back(run.label);
    bars.y.push_back(run.summary.dollars_per_1m_output_tokens.value_or(0.0));
  }
  unit_cost.series.push_back(std::move(bars));
  section.blocks.push_back(xy_chart_block("comparison-cumulative-cost", spend));
  section.blocks.push_back(bar_chart_block("comparison-unit-cost", unit_cost));
  return section;
}

}  // namespace tidal::reports
