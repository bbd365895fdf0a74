// The model catalog: known models as Hugging Face config keys, compiled in from
// catalog/models.json and read by the same reader as users' config.json files (hf_config.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "perf/model_spec.h"

namespace tidal::perf {

// Looks a model up by name or alias, case-insensitively. Unknown names are an InputError
// "<json_path>: unknown model "x"; known models: llama-3-8b, ...".
const ModelSpec& find_model(std::string_view name, const std::string& json_path);

// The same lookup without the error: nullptr when no name or alias matches.
const ModelSpec* lookup_model(std::string_view name);

// Catalog names in catalog order.
std::vector<std::string> model_names();

// One line of `tidal model list`.
struct ModelListing {
  std::string name;
  std::string architecture;  // HF model_type
  std::string source;        // the Hugging Face repo (or paper) the figures come from
  int64_t max_position = 0;  // context length
};

// Every catalog entry, in catalog order.
std::vector<ModelListing> model_listings();

}  // namespace tidal::perf
