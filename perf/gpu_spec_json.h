// Reading one GpuSpec from JSON: a catalog entry (every figure {"value", "source"}) or an inline
// GPU (plain numbers with defaults, parse_gpu_object in gpu_catalog.h), checked by the same rules.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "perf/gpu_catalog.h"
#include "perf/json_reader.h"

namespace tidal::perf {

// Reads one entry of catalog/gpus.json and finishes `entry` (unknown keys are errors).
GpuSpec read_catalog_gpu(JsonObjectReader& entry);

// The rules every GpuSpec meets, wherever it came from: a non-empty name; memory, HBM bandwidth
// and the bf16 rate > 0; every other figure >= 0; nvlink_domain_size >= 1, with a scale-up link
// (interconnect > 0) when the domain holds more than one GPU. `figure_path(key)` is the JSON path
// that messages name for a key ("gpus[3].memory_gib.value", "fleet.pools[0].gpu.memory_gib").
void check_gpu_spec(const GpuSpec& gpu, const std::string& where,
                    const std::function<std::string(std::string_view key)>& figure_path);

}  // namespace tidal::perf
