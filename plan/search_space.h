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
//       "pricing": ["on_demand", "spot"]
//     },
//     "capacity": {"min_rate_scale": 0.25, "max_rate_scale": 16, "tolerance": 0.02}
//   }
//
// A dimension key is a dotted path into the pool's resolved JSON (as summary.json echoes it:
// tp, weight_dtype, scheduler.max_num_seqs, ...), so every pool setting the scenario format
// knows can be searched; `pricing` (on_demand | spot) sets price_per_gpu_hour from the GPU
// catalog unless the scenario format has its own `pricing` key.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario.h"

namespace tidal::plan {

struct Dimension {
  std::string key;                             // dotted pool path, or "pricing"
  std::vector<nlohmann::ordered_json> values;  // [num_values], at least one
};

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
  bool catalog_pricing = false;  // `pricing` is the plan's own (catalog prices)
  CapacitySettings capacity;
};

struct Candidate {
  int64_t index = 0;              // position in the cartesian product
  nlohmann::ordered_json config;  // dimension key -> value, in dimension order
};

// Parses and validates against the loaded base scenario (pool names, dimension keys). Every
// error is an InputError naming the file and JSON path.
SearchSpace parse_search_space(const nlohmann::ordered_json& root, const std::string& file,
                               const sim::Scenario& base);
SearchSpace load_search_space(const std::string& path, const sim::Scenario& base);

// Every candidate, index order. An empty `dimensions` gives one candidate (the scenario).
std::vector<Candidate> enumerate_candidates(const SearchSpace& space);

}  // namespace tidal::plan
