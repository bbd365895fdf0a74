// Model routing: per model the requests it answered, their tokens, TTFT and E2E, its pools'
// dollars and the share of its requests it was declared fit for (summary.json `by_model`,
// docs/scenario.md "Model routing").
#include "reports/cells.h"
#include "reports/sections.h"

namespace tidal::reports {
namespace {

Cell optional_count(const std::optional<int64_t>& value) {
  return value ? count_cell(*value) : Cell{"-", nullptr};
}

}  // namespace

std::optional<Section> models_section(const RunSection& r) {
  if (!r.run.summary.models) return std::nullopt;
  const ModelRoutingFigures& f = *r.run.summary.models;
  Section section{"models" + r.id_suffix, "Models" + r.title_suffix, {}};
  std::vector<std::pair<std::string, Cell>> figures{{"model router", text_cell(f.policy)},
                                                    {"quality kept", percent_cell(f.quality_kept)}};
  if (f.num_private) figures.push_back({"private requests", count_cell(*f.num_private)});
  if (f.num_escalated) figures.push_back({"escalated requests", count_cell(*f.num_escalated)});
  section.blocks.push_back(KeyFigures{figures});
  section.blocks.push_back(Paragraph{
      "Each request counts under the model its answer came from. Quality kept is the share of "
      "requests answered by a model whose declared max_complexity covers their complexity: as "
      "the scenario declares, not measured. Under a cascade, an escalated request ran on both "
      "models, both runs billed, and its latency is their sum."});
  const bool cascade = f.num_escalated.has_value();
  std::vector<std::string> columns{"model",     "pools",      "requests", "finished",
                                   "input tok", "output tok", "TTFT p50", "TTFT p99",
                                   "E2E p50",   "E2E p99",    "dollars",  "quality kept"};
  if (cascade) columns.push_back("escalated");
  Table table{"models-table" + r.id_suffix, "By model", columns, {}};
  for (const ModelFigures& m : f.models) {
    std::vector<Cell> row{text_cell(m.model),
                          text_cell(joined_names(m.pools)),
                          count_cell(m.num_requests),
                          count_cell(m.num_finished),
                          count_cell(m.num_input_tokens),
                          count_cell(m.num_output_tokens),
                          latency_cell(m.ttft_p50_s),
                          latency_cell(m.ttft_p99_s),
                          latency_cell(m.e2e_p50_s),
                          latency_cell(m.e2e_p99_s),
                          dollars_cell(m.dollars),
                          percent_cell(m.quality_kept)};
    if (cascade) row.push_back(optional_count(m.num_escalated));
    table.rows.push_back(std::move(row));
  }
  section.blocks.push_back(std::move(table));
  return section;
}

}  // namespace tidal::reports
