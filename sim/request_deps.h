// Which requests wait on which (agent DAGs, closed-loop clients), as the simulator tracks them:
// a request reaches the router once it has arrived, every request it depends on has finished and
// its think time has passed since.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "traces/request.h"

namespace tidal::sim {

struct RequestDeps {
  // Builds the state of `requests` before any has run (deps index into the same vector).
  explicit RequestDeps(const std::vector<Request>& requests);

  // The requests that wait on request k.
  std::span<const int64_t> dependents_of(size_t k) const {
    return {dependents.data() + begin[k], static_cast<size_t>(begin[k + 1] - begin[k])};
  }

  std::vector<int32_t> num_unfinished;  // [num_requests]
  std::vector<int64_t> done_ns;         // [num_requests] latest finish_ns of its deps
  std::vector<int64_t> failed_dep;      // [num_requests] a rejected dep's id, or -1
  std::vector<char> waiting;            // [num_requests] arrived, deps not finished

 private:
  std::vector<int64_t> begin;       // [num_requests + 1] CSR offsets into dependents
  std::vector<int64_t> dependents;  // [num dep edges] requests that wait on each
};

}  // namespace tidal::sim
