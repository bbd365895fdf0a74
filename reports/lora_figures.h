// summary.json `lora` (runs with LoRA pools; docs/scenario.md, "LoRA adapters") read into
// memory, strictly: a missing field is an InputError naming its JSON path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tidal::reports {

class JsonView;  // reports/json_fields.h

struct LoraPoolFigures {
  std::string pool;
  double adapter_bytes = 0.0;
  int64_t num_loads = 0, num_hits = 0, num_evictions = 0, num_lora_skips = 0;
  std::optional<double> hit_ratio, mean_adapters_per_step;
  double load_s = 0.0;
};

struct LoraFigures {
  int64_t num_adapters = 0;
  int64_t num_adapter_requests = 0;
  std::vector<LoraPoolFigures> pools;
};

// summary.json `lora`.
LoraFigures read_lora_figures(const JsonView& lora);

}  // namespace tidal::reports
