// The catalog JSON files, compiled into the library (CMake generates catalog_data.cpp from
// catalog/gpus.json and catalog/models.json).
#pragma once

#include <string_view>

namespace tidal::perf {

std::string_view gpu_catalog_json();
std::string_view model_catalog_json();

// ASCII case-insensitive equality, for catalog name lookups.
bool iequals(std::string_view a, std::string_view b);

}  // namespace tidal::perf
