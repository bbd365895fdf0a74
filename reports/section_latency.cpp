// Latency: TTFT, TPOT and E2E percentiles per SLO class (the figures of summary.json), SLO
// attainment and goodput, and the CDFs drawn from requests.csv.
#include "reports/cells.h"
#include "reports/chart_block.h"
#include "reports/distribution.h"
#include "reports/format.h"
#include "reports/sections.h"

namespace tidal::reports {
namespace {

constexpr size_t kMaxClassSeries = 8;

std::vector<Cell> percentile_cells(const std::string& name, const LatencyFigures& ttft,
                                   const LatencyFigures& tpot, const LatencyFigures& e2e) {
  return {text_cell(name),          latency_cell(ttft.p50_s), latency_cell(ttft.p90_s),
          latency_cell(ttft.p99_s), latency_cell(tpot.p50_s), latency_cell(tpot.p90_s),
          latency_cell(tpot.p99_s), latency_cell(e2e.p50_s),  latency_cell(e2e.p90_s),
          latency_cell(e2e.p99_s)};
}

// CDF of one latency column, a series per SLO class (finished requests only).
Chart latency_cdf(const RunSection& r, const std::string& id, const std::string& title,
                  const std::vector<double>& values) {
  const RequestRows& q = r.run.requests;
  XYChart chart{title, {title + " (log scale)", AxisUnit::seconds, true}, share_axis()};
  // Zero values (a request scheduled on arrival) sit on the axis' left edge.
  for (size_t c = 0; c < q.class_names.size() && c < kMaxClassSeries; ++c) {
    chart.series.push_back(cdf_series(
        q.class_names[c], sorted_finite_in_group(values, q.slo_class, static_cast<int32_t>(c))));
  }
  return xy_chart_block(id + r.id_suffix, chart);
}

}  // namespace

Section latency_section(const RunSection& r) {
  const RunSummary& s = r.run.summary;
  Section section{"latency" + r.id_suffix, "Latency" + r.title_suffix, {}};
  KeyFigures figures{{
      {"p99 TTFT", latency_cell(s.ttft.p99_s)},
      {"p99 TPOT", latency_cell(s.tpot.p99_s)},
      {"p99 ITL", latency_cell(s.itl.p99_s)},
      {"p99 E2E", latency_cell(s.e2e.p99_s)},
      {"p99 queue delay", latency_cell(s.queue_delay.p99_s)},
      {"SLO attainment", percent_cell(s.slo_attainment)},
  }};
  // Over all requests above (rejected ones count as missed); over finished ones here.
  if (s.finished_slo_share) {
    figures.items.push_back({"SLO met, of finished", percent_cell(s.finished_slo_share)});
  }
  figures.items.push_back({"goodput", rate_cell(s.goodput_rps, "req/s")});
  section.blocks.push_back(std::move(figures));

  Table slo_table{
      "slo-attainment" + r.id_suffix,
      "SLO attainment and goodput",
      {"SLO class", "SLO", "requests", "finished", "rejected", "SLO met", "attainment", "goodput"},
      {}};
  for (const ClassFigures& c : s.classes) {
    slo_table.rows.push_back({text_cell(c.name), text_cell(slo_text(c)), count_cell(c.num_requests),
                              count_cell(c.num_finished), count_cell(c.num_rejected),
                              count_cell(c.num_slo_met), percent_cell(c.slo_attainment),
                              rate_cell(c.goodput_rps, "req/s")});
  }
  slo_table.rows.push_back({text_cell("all"), text_cell("per class"), count_cell(s.num_requests),
                            count_cell(s.num_finished), count_cell(s.num_rejected),
                            count_cell(s.num_slo_met), percent_cell(s.slo_attainment),
                            rate_cell(s.goodput_rps, "req/s")});
  section.blocks.push_back(std::move(slo_table));

  Table percentiles{"latency-percentiles" + r.id_suffix,
                    "Latency percentiles (finished requests)",
                    {"SLO class", "TTFT p50", "TTFT p90", "TTFT p99", "TPOT p50", "TPOT p90",
                     "TPOT p99", "E2E p50", "E2E p90", "E2E p99"},
                    {}};
  for (const ClassFigures& c : s.classes) {
    percentiles.rows.push_back(percentile_cells(c.name, c.ttft, c.tpot, c.e2e));
  }
  percentiles.rows.push_back(percentile_cells("all", s.ttft, s.tpot, s.e2e));
  section.blocks.push_back(std::move(percentiles));
  section.blocks.push_back(Paragraph{
      s.engine ? "Percentiles are nearest-rank over finished requests. TPOT = (finish - first "
                 "token) / (output tokens - 1). An engine run has no SLO classes: every "
                 "finished request counts as meeting its SLO, so SLO attainment is the finished "
                 "share and goodput the throughput."
               : "Percentiles are nearest-rank over finished requests. TPOT = (finish - first "
                 "token) / (output tokens - 1); a request meets its SLO when every bound of its "
                 "class holds."});

  const RequestRows& q = r.run.requests;
  section.blocks.push_back(latency_cdf(r, "ttft-cdf", "TTFT", q.ttft_s));
  section.blocks.push_back(latency_cdf(r, "tpot-cdf", "TPOT", q.tpot_s));
  section.blocks.push_back(latency_cdf(r, "e2e-cdf", "E2E latency", q.e2e_s));
  section.blocks.push_back(latency_cdf(r, "queue-delay-cdf", "Queue delay", q.queue_delay_s));
  if (!s.rejections.empty()) {
    Table rejected{"rejections" + r.id_suffix, "Rejected requests", {"reason", "requests"}, {}};
    for (const auto& [reason, count] : s.rejections) {
      rejected.rows.push_back({text_cell(reason), count_cell(count)});
    }
    section.blocks.push_back(std::move(rejected));
  }
  return section;
}

}  // namespace tidal::reports
