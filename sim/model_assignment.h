// Which model serves each request of a run (docs/scenario.md, "Model routing"): the workload's
// `model` or the trace's, or the model router's pick; and, per model, the entry pools that may
// take its requests (private requests: the local ones only). Routers then choose among those
// pools only.
#pragma once

#include <cstdint>
#include <span>
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
  // [num_models + 1][num_pools] the entry pools among those in `edge` regions, which alone
  // serve private requests: [m] of model m, [num_models] of any model.
  std::vector<std::vector<char>> local_entry_pools;
  // [num_requests] index into models, -1 where the request names none and may go to any pool;
  // empty when model routing is off (no model_router, no request names a model or is private).
  // A cascade's escalation moves a request to its second model during the run.
  std::vector<int32_t> of_request;
  // [num_requests] 1 for a private request (Request::is_private); empty when none is.
  std::vector<char> is_private;
  // [num_requests] cascade only: the model its first answer is escalated to, -1 for none; set
  // to -1 once it is escalated.
  std::vector<int32_t> escalate_to;
  // [num_requests] cascade only: 1 once its first answer was escalated.
  std::vector<char> escalated;
  // [num_requests] complexity and cascade routers, requests with a complexity: the model its
  // answer came from is declared fit for its complexity (max_complexity >= complexity);
  // empty otherwise.
  std::vector<char> quality_kept;

  bool active() const { return !of_request.empty(); }
  bool is_private_request(int64_t request) const {
    return !is_private.empty() && is_private[static_cast<size_t>(request)] != 0;
  }
  // Router-queue group of a request: 0 for any model, 1 + its model otherwise; private
  // requests in groups of their own after those (num_models + 1 + that), so a private request
  // waiting for a local pool never holds up the others.
  int32_t group_of(int64_t request) const {
    if (!active()) return 0;
    const int32_t group = of_request[static_cast<size_t>(request)] + 1;
    return is_private_request(request) ? group + static_cast<int32_t>(models.size()) + 1 : group;
  }
  int32_t num_groups() const { return 2 * (static_cast<int32_t>(models.size()) + 1); }
  // The entry pools a request may be routed to ([num_pools] 1 where allowed); empty: any
  // entry pool.
  std::span<const char> pools_for(int64_t request) const;
  // Whether the request's current answer will be escalated to another model.
  bool escalates(int64_t request) const {
    return !escalate_to.empty() && escalate_to[static_cast<size_t>(request)] >= 0;
  }
};

// Sets each request's Request::model (the workload's `model` over the trace's; the router's
// pick under `complexity`, the first model under `cascade`), its Request::is_private (from
// the workload's `private_share`, seeded, over the trace's flag) and, under `complexity` and
// `cascade`, its Request::complexity where the trace gave none (drawn from the workload's
// `complexity`, seeded, clamped to [0, 1]). With one model in the fleet, a request naming none
// gets it. InputError naming the scenario file, workload and request id for a model no entry
// pool serves, a private request no local pool can serve, or a request the router cannot place
// (no complexity and no workload distribution).
ModelAssignment assign_models(const Scenario& scenario, RequestTable& table);

}  // namespace tidal::sim
