// The headline figures of one run, and head-of-line blocking per tenant when the run has it.
#include <algorithm>
#include <cmath>

#include "reports/cells.h"
#include "reports/chart_block.h"
#include "reports/distribution.h"
#include "reports/format.h"
#include "reports/sections.h"

namespace tidal::reports {

Section overview_section(const RunSection& r) {
  const RunSummary& s = r.run.summary;
  Section section{"overview" + r.id_suffix, "Overview" + r.title_suffix, {}};
  if (s.engine) {
    const EngineFigures& e = *s.engine;
    section.blocks.push_back(Paragraph{
        "Run folder " + r.run.dir + ": engine run of model \"" + e.model + "\" (" + e.model_source +
        ") replaying trace " + e.trace + " at time scale " + format_significant(e.time_scale) +
        ", seed " + std::to_string(s.seed) + ", " + format_latency(s.duration_s) + " replayed in " +
        format_latency(e.wall_s) +
        " of wall time. An engine run records no GPU type or price: it has no cost figures."});
  } else {
    section.blocks.push_back(Paragraph{"Run folder " + r.run.dir + ": scenario \"" +
                                       s.scenario_name + "\", seed " + std::to_string(s.seed) +
                                       ", " + format_latency(s.duration_s) + " simulated."});
  }
  KeyFigures figures{{
      {"requests", count_cell(s.num_requests)},
      {"finished", count_cell(s.num_finished)},
      {"rejected", count_cell(s.num_rejected)},
      {"throughput", rate_cell(s.request_throughput_rps, "req/s")},
      {"output tokens/s", significant_cell(s.output_tokens_per_s)},
      {"p99 TTFT", latency_cell(s.ttft.p99_s)},
      {"p99 E2E", latency_cell(s.e2e.p99_s)},
      {"SLO attainment", percent_cell(s.slo_attainment)},
  }};
  if (s.priced) {
    figures.items.push_back({"total cost", dollars_cell(s.dollars)});
    figures.items.push_back({"$ / 1M output tokens", dollars_cell(s.dollars_per_1m_output_tokens)});
  } else {
    figures.items.push_back({"total cost", Cell{"not priced", nullptr}});
  }
  if (s.engine) figures.items.push_back({"engine steps", count_cell(s.engine->num_steps)});
  section.blocks.push_back(std::move(figures));
  return section;
}

std::optional<Section> hol_section(const RunSection& r) {
  const RequestRows& q = r.run.requests;
  if (q.hol_delay_s.empty()) return std::nullopt;
  Section section{"hol" + r.id_suffix, "Head-of-line blocking" + r.title_suffix, {}};
  section.blocks.push_back(Paragraph{
      "Time each request's steps were stretched by long prefills scheduled with it "
      "(requests.csv hol_delay_s), per tenant; share = that delay over the tenant's E2E "
      "latency; caused = the stretch its own long prefills put on others (hol_caused_s)."});
  Table table{"hol-by-tenant" + r.id_suffix,
              "Head-of-line blocking per tenant",
              {"tenant", "requests", "mean delay", "p50 delay", "p99 delay", "share of E2E",
               "caused to others"},
              {}};
  XYChart chart{"Head-of-line delay CDF",
                {"delay per request (log scale)", AxisUnit::seconds, true},
                share_axis()};
  for (size_t t = 0; t < q.tenant_names.size(); ++t) {
    const auto id = static_cast<int32_t>(t);
    double delayed = 0.0, e2e = 0.0, caused = 0.0;
    for (size_t i = 0; i < q.size(); ++i) {
      if (q.tenant[i] != id) continue;
      if (!q.hol_caused_s.empty() && std::isfinite(q.hol_caused_s[i])) caused += q.hol_caused_s[i];
      if (!std::isfinite(q.hol_delay_s[i])) continue;
      delayed += q.hol_delay_s[i];
      if (std::isfinite(q.e2e_s[i])) e2e += q.e2e_s[i];
    }
    const std::vector<double> sorted = sorted_finite_in_group(q.hol_delay_s, q.tenant, id);
    const auto n = static_cast<int64_t>(sorted.size());
    table.rows.push_back(
        {text_cell(q.tenant_names[t]), count_cell(n),
         latency_cell(n ? std::optional(delayed / static_cast<double>(n)) : std::nullopt),
         latency_cell(n ? std::optional(nearest_rank(sorted, 50)) : std::nullopt),
         latency_cell(n ? std::optional(nearest_rank(sorted, 99)) : std::nullopt),
         percent_cell(e2e > 0 ? std::optional(delayed / e2e) : std::nullopt),
         q.hol_caused_s.empty() ? Cell{"n/a", nullptr} : latency_cell(caused)});
    chart.series.push_back(cdf_series(q.tenant_names[t], sorted));
  }
  section.blocks.push_back(std::move(table));
  const bool any_delay =
      std::any_of(q.hol_delay_s.begin(), q.hol_delay_s.end(), [](double d) { return d > 0.0; });
  if (any_delay) {
    section.blocks.push_back(xy_chart_block("hol-cdf" + r.id_suffix, chart));
  } else {
    section.blocks.push_back(
        Paragraph{"No request was delayed by long prefills (hol_delay_s is 0 throughout)."});
  }
  return section;
}

}  // namespace tidal::reports
