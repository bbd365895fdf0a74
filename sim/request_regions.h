// Client regions of a run's requests (with a scenario `network`): a workload's `region`, a
// seeded pick from its `region_mix`, or else the region the trace gives. Also applies each
// workload's per-request token cap.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/fleet/network.h"
#include "sim/scenario.h"
#include "sim/workload_loader.h"

namespace tidal::sim {

// Caps output tokens at the workload's max_output_tokens.
void apply_token_caps(const Scenario& scenario, RequestTable& table);

// [num_requests] client region index of each request (Request::region is set to its name).
// InputError naming the scenario file and workload for a request without a region, or with a
// name that is not a client region of the network.
std::vector<int32_t> assign_client_regions(const Scenario& scenario, RequestTable& table,
                                           const fleet::NetworkGraph& network);

}  // namespace tidal::sim
