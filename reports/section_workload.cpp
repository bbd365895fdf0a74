// The workload: arrival rate over time with its peak-to-mean ratio, per tenant and in
// aggregate; prompt and output length distributions; tenants and SLO classes.
#include <algorithm>

#include "reports/cells.h"
#include "reports/chart_block.h"
#include "reports/distribution.h"
#include "reports/format.h"
#include "reports/sections.h"

namespace tidal::reports {
namespace {

constexpr size_t kMaxTenantSeries = 8;  // more tenants than this are drawn in aggregate only

struct TenantArrivals {
  std::vector<double> counts;  // [num_intervals]
  RateProfile profile;
};

TenantArrivals tenant_arrivals(const RunData& run, int32_t tenant) {
  std::vector<double> times;
  for (size_t i = 0; i < run.requests.size(); ++i) {
    if (run.requests.tenant[i] == tenant) times.push_back(run.requests.arrival_s[i]);
  }
  TenantArrivals t;
  t.counts = counts_per_interval(times, run.timeline.start_s, run.timeline.end_s);
  t.profile = rate_profile(t.counts, run.timeline.start_s, run.timeline.end_s);
  return t;
}

Series rate_series(const std::string& name, const RunData& run, const RateProfile& profile,
                   double divisor) {
  Series s{name, {}, {}, SeriesStyle::step};
  const TimelineRows& t = run.timeline;
  for (size_t i = 0; i < t.size(); ++i) {
    s.x.push_back(t.start_s[i] / divisor);
    s.y.push_back(profile.rate_per_s[i]);
  }
  if (t.size() > 0) {
    s.x.push_back(t.end_s.back() / divisor);
    s.y.push_back(profile.rate_per_s.back());
  }
  return s;
}

// Share of a tenant's requests (all requests for tenant -1) that met their class' SLO.
Cell slo_met_share(const RequestRows& q, int32_t tenant) {
  int64_t num = 0, num_met = 0;
  for (size_t i = 0; i < q.size(); ++i) {
    if (tenant >= 0 && q.tenant[i] != tenant) continue;
    ++num;
    num_met += q.slo_met[i];
  }
  return percent_cell(num > 0 ? std::optional(static_cast<double>(num_met) / num) : std::nullopt);
}

Cell length_percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return Cell{"n/a", nullptr};
  const double v = nearest_rank(sorted, p);
  return number_cell(v, format_number(v, 0));
}

}  // namespace

Section workload_section(const RunSection& r) {
  const RunData& run = r.run;
  const RequestRows& q = run.requests;
  Section section{"workload" + r.id_suffix, "Workload" + r.title_suffix, {}};
  const RateProfile all =
      rate_profile(run.timeline.arrivals, run.timeline.start_s, run.timeline.end_s);
  section.blocks.push_back(KeyFigures{{
      {"requests", count_cell(run.summary.num_requests)},
      {"mean arrival rate", rate_cell(all.mean_per_s, "req/s")},
      {"peak arrival rate", rate_cell(all.peak_per_s, "req/s")},
      {"peak-to-mean", ratio_cell(all.peak_to_mean)},
      {"tenants", count_cell(static_cast<int64_t>(q.tenant_names.size()))},
      {"SLO classes", count_cell(static_cast<int64_t>(q.class_names.size()))},
  }});
  section.blocks.push_back(Paragraph{
      "Arrival rate per timeline interval (" +
      format_number(run.timeline.size() > 0 ? run.timeline.end_s[0] - run.timeline.start_s[0] : 0,
                    1) +
      " s). Peak-to-mean = the highest interval rate over the mean rate up to the last "
      "arrival, for all tenants together and for each tenant alone."});

  // Arrival rate chart: aggregate plus each tenant.
  const TimeAxis time = time_axis_for(run.summary.duration_s);
  XYChart rate_chart{"Arrival rate", time.axis(), {"arrivals (req/s)"}};
  rate_chart.series.push_back(rate_series("all tenants", run, all, time.divisor));
  std::vector<TenantArrivals> tenants;
  for (size_t t = 0; t < q.tenant_names.size(); ++t) {
    tenants.push_back(tenant_arrivals(run, static_cast<int32_t>(t)));
    if (q.tenant_names.size() > 1 && t < kMaxTenantSeries) {
      rate_chart.series.push_back(
          rate_series(q.tenant_names[t], run, tenants.back().profile, time.divisor));
    }
  }
  section.blocks.push_back(xy_chart_block("arrival-rate" + r.id_suffix, rate_chart));

  // Length distributions per tenant.
  XYChart prompt_chart{
      "Prompt length CDF", {"prompt tokens", AxisUnit::number, true}, share_axis()};
  XYChart output_chart{
      "Output length CDF", {"output tokens", AxisUnit::number, true}, share_axis()};
  Table tenant_table{"tenants" + r.id_suffix,
                     "Tenants",
                     {"tenant", "requests", "share", "SLO met", "mean rate", "peak-to-mean",
                      "prompt p50", "prompt p99", "output p50", "output p99"},
                     {}};
  const auto total = static_cast<double>(std::max<size_t>(q.size(), 1));
  for (size_t t = 0; t < q.tenant_names.size(); ++t) {
    const auto id = static_cast<int32_t>(t);
    const std::vector<double> prompts = sorted_finite_in_group(q.prompt_tokens, q.tenant, id);
    const std::vector<double> outputs = sorted_finite_in_group(q.output_tokens, q.tenant, id);
    if (t < kMaxTenantSeries) {
      prompt_chart.series.push_back(cdf_series(q.tenant_names[t], prompts));
      output_chart.series.push_back(cdf_series(q.tenant_names[t], outputs));
    }
    const auto n = static_cast<int64_t>(prompts.size());
    tenant_table.rows.push_back({text_cell(q.tenant_names[t]), count_cell(n),
                                 percent_cell(static_cast<double>(n) / total), slo_met_share(q, id),
                                 rate_cell(tenants[t].profile.mean_per_s, "req/s"),
                                 ratio_cell(tenants[t].profile.peak_to_mean),
                                 length_percentile(prompts, 50), length_percentile(prompts, 99),
                                 length_percentile(outputs, 50), length_percentile(outputs, 99)});
  }
  const std::vector<double> prompts = sorted_finite(q.prompt_tokens);
  const std::vector<double> outputs = sorted_finite(q.output_tokens);
  tenant_table.rows.push_back({text_cell("all tenants"), count_cell(static_cast<int64_t>(q.size())),
                               percent_cell(q.size() > 0 ? 1.0 : 0.0), slo_met_share(q, -1),
                               rate_cell(all.mean_per_s, "req/s"), ratio_cell(all.peak_to_mean),
                               length_percentile(prompts, 50), length_percentile(prompts, 99),
                               length_percentile(outputs, 50), length_percentile(outputs, 99)});
  section.blocks.push_back(xy_chart_block("prompt-length-cdf" + r.id_suffix, prompt_chart));
  section.blocks.push_back(xy_chart_block("output-length-cdf" + r.id_suffix, output_chart));
  section.blocks.push_back(std::move(tenant_table));

  Table class_table{
      "classes" + r.id_suffix, "SLO classes", {"SLO class", "requests", "share", "SLO"}, {}};
  for (const ClassFigures& c : run.summary.classes) {
    class_table.rows.push_back({text_cell(c.name), count_cell(c.num_requests),
                                percent_cell(static_cast<double>(c.num_requests) / total),
                                text_cell(slo_text(c))});
  }
  if (run.summary.engine) {
    // The engine keeps the trace's class names (requests.csv) but has no SLOs for them.
    for (size_t c = 0; c < q.class_names.size(); ++c) {
      const auto n = static_cast<int64_t>(
          std::count(q.slo_class.begin(), q.slo_class.end(), static_cast<int32_t>(c)));
      class_table.rows.push_back({text_cell(q.class_names[c]), count_cell(n),
                                  percent_cell(static_cast<double>(n) / total),
                                  text_cell("none (engine run)")});
    }
  }
  section.blocks.push_back(std::move(class_table));
  return section;
}

}  // namespace tidal::reports
