// Named storage media that weights are read from during a cold start, with the effective read
// rate a serving engine's weight loader reaches from each (docs/fleet.md, "Storage presets").
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace tidal::fleet {

struct StoragePreset {
  std::string_view name;
  double read_Bps;  // bytes/s one replica reads, shared by all GPUs of the replica
  std::string_view source;
};

// host_memory, local_nvme, network_disk, object_store (in that order).
std::span<const StoragePreset> storage_presets();

// Looks a preset up by exact name; anything else is an InputError
// "<where>: <path>: unknown storage "x"; expected one of host_memory, local_nvme, ...".
const StoragePreset& find_storage(std::string_view name, const std::string& where,
                                  const std::string& path);

}  // namespace tidal::fleet
