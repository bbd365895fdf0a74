#include "sim/fleet/storage.h"

#include <array>

#include "perf/json_reader.h"

namespace tidal::fleet {

namespace {

constexpr std::array<StoragePreset, 4> kStoragePresets{{
    {"host_memory", 10e9,
     "thaw-vllm package page: snapshot restore of Llama-3-8B from RAM on an H100 at 10.69 GB/s "
     "(a pipelined DMA path; an engine's own loader from the page cache may be slower)"},
    {"local_nvme", 2.0e9,
     "fitted: thaw-vllm's vLLM cold start of Llama-3-8B on one H100 (20.7 s, weights on local "
     "NVMe) less the engine-init and KV defaults leaves ~8 s for 16 GB; raw NVMe reads are "
     "faster, safetensors deserialization and host-to-device copies limit the loader"},
    {"network_disk", 0.25e9,
     "fitted: thaw-vllm's vLLM cold start of Llama-3-70B (141 GB) on 2x A100 (546.5 s), which "
     "its authors say weight loading dominates; cloud network block volumes commonly deliver "
     "0.1-1 GB/s (check)"},
    {"object_store", 0.5e9,
     "example value (check): one object-store client reading with parallel ranged GETs; a "
     "single stream is slower, many parallel readers faster"},
}};

}  // namespace

std::span<const StoragePreset> storage_presets() {
  return kStoragePresets;
}

const StoragePreset& find_storage(std::string_view name, const std::string& where,
                                  const std::string& path) {
  std::string expected;
  for (const StoragePreset& preset : kStoragePresets) {
    if (preset.name == name) return preset;
    expected += (expected.empty() ? "" : ", ") + std::string(preset.name);
  }
  perf::throw_json_error(
      where, path, "unknown storage \"" + std::string(name) + "\"; expected one of " + expected);
}

}  // namespace tidal::fleet
