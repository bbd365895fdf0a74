// What tidal understood of a model, as JSON (`tidal model info`): dimensions, attention kind per
// layer, experts, parameter counts, weight bytes per dtype, KV bytes per token, context.
#pragma once

#include <nlohmann/json.hpp>

#include "perf/model_spec.h"

namespace tidal::perf {

nlohmann::ordered_json describe_model(const ModelSpec& model);

}  // namespace tidal::perf
