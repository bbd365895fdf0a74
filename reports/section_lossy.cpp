// Lossy speedups: what each pool gave up for speed and KV capacity, and the quality loss the
// scenario declares for it, which nothing here verifies (docs/perf.md, "Lossy speedups").
#include <algorithm>

#include <fmt/format.h>

#include "reports/cells.h"
#include "reports/format.h"
#include "reports/sections.h"

namespace tidal::reports {
namespace {

bool quantized_kv(const std::string& kv_dtype) {
  return kv_dtype == "fp8" || kv_dtype == "int8" || kv_dtype == "fp4" || kv_dtype == "int4";
}

}  // namespace

std::optional<Section> lossy_section(const RunSection& r) {
  const std::vector<PoolFigures>& pools = r.run.summary.pools;
  const bool any = std::any_of(pools.begin(), pools.end(),
                               [](const PoolFigures& p) { return p.lossy.has_value(); });
  if (!any) return std::nullopt;
  Section section{"lossy" + r.id_suffix, "Lossy speedups" + r.title_suffix, {}};
  section.blocks.push_back(Paragraph{
      "These pools trade quality for time or KV capacity. The quality loss is the scenario's "
      "declaration: not verified. tidal prices the speed and the memory (a kept ratio shrinks "
      "attention reads and each token's KV; a window shrinks attention reads only; skipped "
      "layers take no time and keep no KV, their weights stay loaded), never the answers."});
  Table table{"lossy-table" + r.id_suffix,
              "By pool",
              {"pool", "KV dtype", "KV kept", "KV window", "layers skipped", "KV blocks",
               "declared quality loss"},
              {}};
  for (const PoolFigures& p : pools) {
    if (!p.lossy && !quantized_kv(p.kv_dtype)) continue;
    const PoolLossy l = p.lossy.value_or(PoolLossy{});
    const Cell window = l.kv_window_tokens ? count_cell(*l.kv_window_tokens) : text_cell("-");
    const Cell declared =
        l.declared_quality_loss
            ? text_cell(format_percent(*l.declared_quality_loss) + " (not verified)")
            : text_cell("not declared");
    table.rows.push_back({text_cell(p.name), text_cell(p.kv_dtype), percent_cell(l.kv_kept_ratio),
                          window, percent_cell(l.layer_skip_share), count_cell(p.num_gpu_blocks),
                          declared});
  }
  section.blocks.push_back(std::move(table));
  return section;
}

}  // namespace tidal::reports
