// Scenario keys of the fleet simulation outside the pools: a workload's region and token cap,
// the router's knobs, the `metrics` object, the `network` and `energy` (internal to the loader).
#pragma once

#include <optional>
#include <vector>

#include "sim/json_object.h"
#include "sim/scenario.h"

namespace tidal::sim {

// `region`, `region_mix`, `max_output_tokens` of one workload.
void read_workload_fleet_keys(JsonObject& workload_obj, WorkloadSpec& workload);
// Every router knob but `policy`.
void read_router_knobs(JsonObject& router_obj, RouterSpec& router);
// Whether the router `policy` reads the knob `key` (load_factor, prefix_blocks, virtual_nodes
// belong to some policies only; every policy reads the others). A knob of another policy is an
// error, and the echo leaves it out.
bool router_reads_knob(std::string_view policy, std::string_view key);
MetricsSpec parse_metrics_spec(JsonObject& root);
// The `network` (null when absent). With a network every pool needs a hosting `region`, every
// workload region must be a client region, and each client region must reach a pool; without
// one, pools and workloads must not name regions.
std::optional<fleet::NetworkSpec> parse_network(JsonObject& root,
                                                const std::vector<PoolSpec>& pools,
                                                const std::vector<WorkloadSpec>& workloads);
// The `energy` object into scenario.energy, then, when the scenario asks for energy (that object,
// a pool's `energy` or a region's energy keys), each pool's resolved power and site (its
// region's keys over the `energy` object's). Needs the network parsed.
void parse_energy(JsonObject& root, Scenario& scenario);

}  // namespace tidal::sim
