// Which model serves each request of a run (docs/scenario.md, "Model routing"): the workload's
// `model` or the trace's, or the `complexity` model router's pick; and, per model, the entry
// pools that may take its requests. Routers then choose among those pools only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/scenario.h"
#include "sim/workload_loader.h"

namespace tidal::sim {

struct ModelAssignment {
  std::vector<std::string> models;     // [num_models] the entry pools' models, in pool order
  std::vector<int32_t> model_of_pool;  // [num_pools] index into models (decode pools too)
  // [num_models][num_pools] 1 where the pool is an entry pool (role prefill or both) serving
  // the model.
  std::vector<std::vector<char>> entry_pools;
  // [num_requests] index into models, -1 where the request names none and may go to any pool;
  // empty when model routing is off (no model_router and no request names a model).
  std::vector<int32_t> of_request;
  // [num_requests] complexity router only: the model it ran on is declared fit for its
  // complexity (max_complexity >= complexity); empty otherwise.
  std::vector<char> quality_kept;

  bool active() const { return !of_request.empty(); }
  // Router-queue group of a request: 0 for any model, 1 + its model otherwise.
  int32_t group_of(int64_t request) const {
    return active() ? of_request[static_cast<size_t>(request)] + 1 : 0;
  }
  int32_t num_groups() const { return static_cast<int32_t>(models.size()) + 1; }
};

// Sets each request's Request::model (the workload's `model` over the trace's; the router's
// pick under `complexity`) and, under `complexity`, its Request::complexity where the trace
// gave none (drawn from the workload's `complexity`, seeded, clamped to [0, 1]). With one
// model in the fleet, a request naming none gets it. InputError naming the scenario file,
// workload and request id for a model no entry pool serves, or a request the complexity
// router cannot place (no complexity and no workload distribution).
ModelAssignment assign_models(const Scenario& scenario, RequestTable& table);

}  // namespace tidal::sim
