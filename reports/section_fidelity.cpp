#include <fmt/format.h>

#include "reports/cells.h"
#include "reports/chart_block.h"
#include "reports/distribution.h"
#include "reports/folder_sections.h"
#include "reports/format.h"

namespace tidal::reports {
namespace {

std::string format_in_unit(double v, const std::string& unit) {
  if (unit == "s") return format_latency(v);
  if (unit == "share") return format_percent(v);
  if (unit.empty()) return format_significant(v);
  return format_significant(v) + " " + unit;
}

Chart predicted_vs_measured(const ValidationData& v, const std::string& id,
                            const std::string& title, std::vector<double> RequestRows::*column) {
  XYChart chart{title + ": predicted vs measured",
                {title + " (log scale)", AxisUnit::seconds, true},
                share_axis()};
  chart.series.push_back(
      cdf_series("predicted (simulator)", sorted_finite(v.predicted.requests.*column)));
  chart.series.push_back(
      cdf_series("measured (engine)", sorted_finite(v.measured.requests.*column)));
  return xy_chart_block(id, chart);
}

}  // namespace

Section fidelity_section(const ValidationData& v, const std::string& id_suffix) {
  Section section{"fidelity" + id_suffix, v.title, {}};
  int64_t num_pass = 0;
  for (const ValidationMetric& m : v.metrics) num_pass += m.pass ? 1 : 0;
  section.blocks.push_back(Paragraph{"Validation folder " + v.dir +
                                     ": the simulator's prediction (" + v.predicted.dir +
                                     ") against the measured run (" + v.measured.dir +
                                     "). Error = (predicted - measured) / measured."});
  section.blocks.push_back(KeyFigures{{
      {"metrics within tolerance",
       Cell{fmt::format("{} of {}", num_pass, v.metrics.size()), num_pass}},
      {"predicted p99 TTFT", latency_cell(v.predicted.ttft.p99_s)},
      {"measured p99 TTFT", latency_cell(v.measured.ttft.p99_s)},
  }});
  Table errors{"fidelity-errors" + id_suffix,
               "Prediction error",
               {"metric", "predicted", "measured", "error", "tolerance", "within"},
               {}};
  for (const ValidationMetric& m : v.metrics) {
    errors.rows.push_back(
        {text_cell(m.metric), number_cell(m.predicted, format_in_unit(m.predicted, m.unit)),
         number_cell(m.measured, format_in_unit(m.measured, m.unit)),
         number_cell(m.error, fmt::format("{}{}", m.error > 0 ? "+" : "", format_percent(m.error))),
         m.tolerance ? number_cell(*m.tolerance, fmt::format("±{}", format_percent(*m.tolerance)))
                     : Cell{"n/a", nullptr},
         text_cell(m.pass ? "yes" : "no")});
  }
  section.blocks.push_back(std::move(errors));
  section.blocks.push_back(
      predicted_vs_measured(v, "fidelity-ttft" + id_suffix, "TTFT", &RequestRows::ttft_s));
  section.blocks.push_back(
      predicted_vs_measured(v, "fidelity-tpot" + id_suffix, "TPOT", &RequestRows::tpot_s));
  section.blocks.push_back(
      predicted_vs_measured(v, "fidelity-e2e" + id_suffix, "E2E latency", &RequestRows::e2e_s));
  return section;
}

}  // namespace tidal::reports
