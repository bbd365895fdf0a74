// Acceptance rates by SLO class (`fleet.pools[i].speculative.acceptance_by_class`): the same
// drafter accepts less on some workloads than on others (constrained JSON output, short
// answers), so a pool may give a class its own per-token acceptance rate (docs/scenario.md,
// "Speculative decoding").
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/json_object.h"
#include "sim/scenario.h"

namespace tidal::sim {

// `acceptance_by_class` of a pool's `speculative` object: slo_class -> rate in [0, 1); empty
// when absent. Class names are checked against the workloads by check_acceptance_classes.
std::map<std::string, double> read_acceptance_by_class(JsonObject& speculative_obj);

// InputError naming fleet.pools[i].speculative.acceptance_by_class.<name> for a class no
// workload has (a misspelt class would silently keep the pool's rate).
void check_acceptance_classes(const std::vector<PoolSpec>& pools,
                              const std::vector<SloClass>& classes, const std::string& file);

// [classes.size()] the rate `spec` gives each class, nullopt where the pool's rates apply; empty
// when `spec` names no class. std::logic_error for a name not among `classes`.
std::vector<std::optional<double>> acceptance_by_class_index(const SpeculativeSpec& spec,
                                                             std::span<const SloClass> classes);

}  // namespace tidal::sim
