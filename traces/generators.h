// Synthetic workload generators: a JSON spec (docs/generators.md) and a seed -> requests,
// byte-identical across runs and standard libraries.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "traces/request.h"

namespace tidal::traces {

// Kinds: poisson, gamma, bursty, diurnal, batch, closed_loop, sessions, agent, mix, file.
// `json_path` prefixes every error message ("workloads[0].generator.rate: must be > 0"), so a
// scenario can embed a spec verbatim. Relative file paths in the spec (empirical lengths, file
// workloads) resolve against `base_dir` when it is not empty. Ids are 0..n-1 in arrival order.
std::vector<Request> generate(const nlohmann::json& spec, uint64_t seed,
                              const std::string& json_path = "generator",
                              const std::string& base_dir = "");

// The kinds generate() accepts, in documentation order.
const std::vector<std::string_view>& generator_kinds();

// Builds a spec from command-line words: `kind` plus assignments "key=value",
// "--key value" or "--key=value"; dashes in keys become underscores and dots nest
// ("--prompt.median 900" sets spec["prompt"]["median"]). Values that parse as JSON keep
// their JSON type, anything else is a string. InputError on a malformed word.
nlohmann::json spec_from_args(std::string_view kind, const std::vector<std::string>& args);

// Parses a JSON spec file; InputError "path: ..." when it is missing or not valid JSON.
nlohmann::json read_spec_file(const std::string& path);

}  // namespace tidal::traces
