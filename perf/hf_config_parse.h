// Inside the Hugging Face config reader: parse_hf_config with the quant file's own name for its
// errors (load_hf_config knows the path; parse_hf_config does not).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "perf/model_spec.h"

namespace tidal::perf {

ModelSpec parse_hf_config_with_quant(const nlohmann::json& config, const std::string& where,
                                     const nlohmann::json* hf_quant_config,
                                     const std::string& hf_quant_where);

}  // namespace tidal::perf
