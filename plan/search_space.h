// The search space of a plan (SPACE.json, docs/plan.md): which pool to vary and, per
// dimension, the values to try. Candidates are the cartesian product in file order (the last
// dimension varies fastest), each a set of overrides applied to the pool.
//
//   {
//     "pool": "h100",                                   // default: the scenario's first pool
//     "dimensions": {
//       "gpu": ["H100-SXM", "A100-80GB"],
//       "tp": [1, 2],
//       "weight_dtype": ["bf16", "int4"],
//       "scheduler.policy": ["static", "continuous"],
//       "num_replicas": [2, 4, 8],
//       "pricing.market": ["on_demand", "spot"]
//     },
//     "capacity": {"min_rate_scale": 0.25, "max_rate_scale": 16, "tolerance": 0.02}
//   }
//
// A dimension key is a dotted path into the pool's scenario JSON (tp, weight_dtype,
// scheduler.max_num_seqs, pricing.market, autoscaler.max_replicas, ...), so every pool setting
// the scenario format knows can be searched. A key the scenario loader does not know is an error
// of the space; a value it refuses makes that candidate invalid.
//
// Role axes search a disaggregated layout (a scenario with one pool of role prefill and one of
// role decode): "prefill_replicas", "prefill_tp", "decode_replicas", "decode_tp" set
// num_replicas and tp of that role's pool, whichever pool "pool" names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario.h"

namespace tidal::plan {

struct Dimension {
  std::string key;                             // as written: a dotted pool path or a role axis
  std::vector<nlohmann::ordered_json> values;  // [num_values], at least one
  size_t pool_index = 0;                       // the pool it sets
  std::string pool_key;                        // the dotted path it sets inside that pool
};

// A role axis: `key` sets `pool_key` of the scenario's one pool of role `role`.
struct RoleAxis {
  std::string_view key;
  std::string_view role;
  std::string_view pool_key;
};
// prefill_replicas, prefill_tp, decode_replicas, decode_tp; nullptr for any other key.
const RoleAxis* find_role_axis(std::string_view key);

struct CapacitySettings {
  double min_rate_scale = 0.25;  // the lowest request-rate scale tried
  double max_rate_scale = 16.0;  // the search stops growing here
  double tolerance = 0.02;       // bisection stops when hi / lo <= 1 + tolerance
};

struct SearchSpace {
  std::string file;
  size_t pool_index = 0;
  std::string pool_name;
  std::vector<Dimension> dimensions;
  CapacitySettings capacity;
  // The scenario's one pool of role prefill and one of role decode, when it has exactly that
  // (a disaggregated layout; tables then show both roles).
  std::optional<size_t> prefill_pool, decode_pool;
};

struct Candidate {
  int64_t index = 0;              // position in the cartesian product
  nlohmann::ordered_json config;  // dimension key -> value, in dimension order
};

// The scenario a space applies to: its file's JSON and where relative paths resolve.
struct BaseScenario {
  nlohmann::json json;
  std::string file;
  std::string dir;
};

// Parses and validates against the base scenario: the pool must exist, and each dimension key
// must be one the scenario loader knows (probed by loading the scenario with the key set to
// its first value). Every error is an InputError naming the file and JSON path.
SearchSpace parse_search_space(const nlohmann::ordered_json& root, const std::string& file,
                               const BaseScenario& base);
SearchSpace load_search_space(const std::string& path, const BaseScenario& base);

// `scenario` with `value` set at the dotted `key` of pool `pool_index` (objects created on
// the way).
void set_pool_key(nlohmann::json& scenario, size_t pool_index, const std::string& key,
                  const nlohmann::json& value);

// `scenario` with every dimension's value in `config` (a candidate's) set in its pool.
void apply_candidate(nlohmann::json& scenario, const SearchSpace& space,
                     const nlohmann::ordered_json& config);

// The candidate's values for pool `pool_index`, by key inside the pool (role axes translated).
nlohmann::ordered_json pool_overrides(const SearchSpace& space, size_t pool_index,
                                      const nlohmann::ordered_json& config);

// Every candidate, index order. An empty `dimensions` gives one candidate (the scenario).
std::vector<Candidate> enumerate_candidates(const SearchSpace& space);

}  // namespace tidal::plan
