// Loading a plan's inputs into a PlanContext (identically on every rank).
#pragma once

#include <string>
#include <vector>

#include "plan/candidate_eval.h"
#include "plan/plan_runner.h"

namespace tidal::plan {

struct PlanInputs {
  PlanContext context;
  sim::Scenario base;  // the scenario as given
  std::vector<Candidate> candidates;
  std::vector<std::string> ids;  // [num_candidates]
};

// InputError for an unreadable scenario or space file, a bad --slo, an unknown mode, latency
// or SLO class.
PlanInputs load_plan_inputs(const PlanOptions& options);

}  // namespace tidal::plan
