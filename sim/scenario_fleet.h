// Reading and resolving the scenario's `fleet` object (internal to the scenario loader).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario.h"

namespace tidal::sim {

// `fleet` may be null (missing key). Resolves catalogs, memory plans, KV pools, prices and
// step-time models; every error names `file` and the JSON path.
std::vector<PoolSpec> parse_fleet(const nlohmann::json* fleet, const std::string& file,
                                  const std::string& base_dir);

// `path` as written, resolved against `base_dir` when relative.
std::string resolve_path(const std::string& path, const std::string& base_dir);

}  // namespace tidal::sim
