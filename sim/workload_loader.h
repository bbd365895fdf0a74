// Turns a scenario's workloads into the run's request table: reads traces or runs generators,
// applies each workload's scaling, tenant and SLO class, cuts at duration_s, and merges all
// workloads by arrival time.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/scenario.h"
#include "traces/request.h"

namespace tidal::sim {

struct RequestTable {
  // Sorted by (arrival, workload index, position in the workload). Ids are renumbered to the
  // index in this table; deps are renumbered the same way.
  std::vector<Request> requests;             // [num_requests]
  std::vector<int64_t> arrival_ns;           // [num_requests] arrival_s rounded to nanoseconds
  std::vector<int32_t> workload;             // [num_requests] index into Scenario::workloads
  std::vector<int32_t> slo_class;            // [num_requests] index into Scenario::slo_classes
  std::vector<int64_t> num_source_requests;  // [num_workloads] before the duration cut
};

// InputError (naming the scenario file and workload) for unreadable traces, bad generator
// specs and deps naming unknown requests or forming cycles.
RequestTable load_workloads(const Scenario& scenario);

}  // namespace tidal::sim
