// Dependency graphs of agent traces (Request::deps): topological order and critical path,
// computed with Boost.Graph.
#pragma once

#include <cstdint>
#include <vector>

#include "traces/request.h"

namespace tidal::traces {

struct DagAnalysis {
  std::vector<int64_t> topo_order;     // [num_requests] request indices, every dep before its user
  int64_t num_dag_requests = 0;        // requests with deps or depended upon
  int64_t num_dags = 0;                // connected groups of such requests
  int64_t critical_path_requests = 0;  // most requests on one dependency chain
  int64_t critical_path_output_tokens = 0;  // most output tokens summed along one chain
};

// InputError ("request 7 (requests[2]): deps: unknown id 9", "deps form a cycle: request 3
// waits on 5, 5 on 3") when a dep names an unknown id or the request itself, or the deps form a
// cycle; also when two requests share an id. Callers prefix the file the requests came from.
DagAnalysis analyze_dag(const std::vector<Request>& requests);

}  // namespace tidal::traces
