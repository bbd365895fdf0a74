// LoRA adapters: how many the run's requests named, and per LoRA pool how often its replicas
// had to load one, the time that took and the requests that waited for a batch with room for
// their adapter (summary.json `lora`, docs/scenario.md "LoRA adapters").
#include "reports/cells.h"
#include "reports/format.h"
#include "reports/sections.h"

namespace tidal::reports {

std::optional<Section> lora_section(const RunSection& r) {
  if (!r.run.summary.lora) return std::nullopt;
  const LoraFigures& f = *r.run.summary.lora;
  Section section{"lora" + r.id_suffix, "LoRA adapters" + r.title_suffix, {}};
  section.blocks.push_back(
      KeyFigures{{{"adapters named", count_cell(f.num_adapters)},
                  {"requests naming one", count_cell(f.num_adapter_requests)}}});
  section.blocks.push_back(Paragraph{
      "A step holding an adapter its replica has not loaded first loads it (its bytes over the "
      "pool's load bandwidth); a replica keeps max_cpu_loras adapters, least recently used "
      "evicted first. A hit is a step's adapter found loaded. Passed over: waiting requests "
      "that sat out a step because the running batch already held max_loras_per_batch other "
      "adapters."});
  Table table{"lora-table" + r.id_suffix,
              "By pool",
              {"pool", "adapter MB", "loads", "hit ratio", "evictions", "load time",
               "adapters / step", "passed over"},
              {}};
  for (const LoraPoolFigures& p : f.pools) {
    table.rows.push_back(
        {text_cell(p.pool),
         number_cell(p.adapter_bytes / 1e6, format_significant(p.adapter_bytes / 1e6)),
         count_cell(p.num_loads), percent_cell(p.hit_ratio), count_cell(p.num_evictions),
         latency_cell(p.load_s), significant_cell(p.mean_adapters_per_step),
         count_cell(p.num_lora_skips)});
  }
  section.blocks.push_back(std::move(table));
  return section;
}

}  // namespace tidal::reports
