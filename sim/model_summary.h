// summary.json's `by_model` section (docs/run-output.md, "By model"): per model the fleet
// serves, its requests, tokens, latencies and dollars, and under the complexity model router
// the share of its requests it was declared fit for ("quality kept", as declared, not
// measured). Present only with model routing (sim/model_assignment.h).
#pragma once

#include <nlohmann/json.hpp>

#include "sim/metrics.h"
#include "sim/scenario.h"
#include "sim/simulator.h"

namespace tidal::sim {

// Null when model routing is off.
nlohmann::ordered_json model_summary_json(const Scenario& scenario, const RunResult& result,
                                          const RunMetrics& metrics);

}  // namespace tidal::sim
