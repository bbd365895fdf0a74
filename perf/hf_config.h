// Hugging Face config.json files as tidal ModelSpecs: the architectures tidal can represent
// honestly (docs/models.md, "Models from Hugging Face configs"), their checkpoint quantization,
// and a clear InputError for everything else.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "perf/model_spec.h"

namespace tidal::perf {

// `config`: a parsed HF config.json object; `where` names it in errors (a file path, or
// "scenario.json: fleet.pools[0].model" for an inline object); `hf_quant_config`: the parsed
// hf_quant_config.json beside it, or nullptr. Errors are InputError "<where>: <key>: <what>".
// The result has no name or source (the caller knows them); notes lists the approximations.
ModelSpec parse_hf_config(const nlohmann::json& config, const std::string& where,
                          const nlohmann::json* hf_quant_config = nullptr);

// A config.json file, or a folder holding config.json. Reads the quant file beside it:
// "hf_quant_config.json" in the same folder, or "<prefix>_hf_quant_config.json" for a file named
// "<prefix>_config.json". name: "<org>/<name>" for "<org>--<name>_config.json", the folder name
// for ".../<name>/config.json", else the file stem. source: the path.
ModelSpec load_hf_config(const std::filesystem::path& path);

// A JSON file as Python's json module writes it: NaN, Infinity and -Infinity (outside strings)
// read as null. InputError "<file>: cannot open" or "<file>: not valid JSON: ...".
nlohmann::json read_hf_json_file(const std::filesystem::path& file);

// The model_type values parse_hf_config accepts, sorted.
std::vector<std::string> supported_model_types();

}  // namespace tidal::perf
