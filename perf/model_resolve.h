// A pool's `model` value as a ModelSpec: a catalog name, a path to a Hugging Face config.json (or
// a folder holding one), or an inline config object.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "perf/model_spec.h"

namespace tidal::perf {

// A string is a catalog name or alias (lookup_model); if no catalog entry matches and the string
// ends in ".json" or names an existing file or folder relative to base_dir (absolute paths as
// they are), it is loaded with load_hf_config. An object is an inline config (config.json's keys,
// parsed by parse_hf_config with where = "<where>: <json_path>"; named by its "_name_or_path" if
// it has one, else json_path). Anything else, or a string that is neither, is an InputError
// "<where>: <json_path>: unknown model "x" (not a catalog name, and <base_dir>/x does not exist);
// known models: ...". Errors from a config file are prefixed with "<where>: <json_path>: ".
ModelSpec resolve_model(const nlohmann::json& value, const std::filesystem::path& base_dir,
                        const std::string& where, const std::string& json_path);

}  // namespace tidal::perf
