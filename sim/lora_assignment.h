// Which pools may serve each request's LoRA adapter (docs/scenario.md, "LoRA adapters"):
// workloads' `adapters` drawn for requests whose trace names none, and every adapter checked
// against the pools' `lora` before the run.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sim/scenario.h"
#include "sim/workload_loader.h"

namespace tidal::sim {

struct AdapterRouting {
  std::vector<std::string> adapters;     // distinct adapters requests name, first use first
  std::vector<std::vector<char>> pools;  // [num adapters][num_pools] pools serving each
  std::vector<int32_t> of_request;       // [num_requests] index into adapters, -1: none

  bool active() const { return !of_request.empty(); }
  // The pools that may serve `request` (empty span: any).
  std::span<const char> pools_for(int64_t request) const;
};

// Draws the workloads' adapters into the requests that name none, then maps each adapter to
// the pools that serve it: prefill or both pools with `lora` listing it (or listing none) and
// serving the request's model when it names one. InputError naming the file, workload and
// request when an adapter has no such pool.
AdapterRouting assign_adapters(const Scenario& scenario, RequestTable& table);

}  // namespace tidal::sim
