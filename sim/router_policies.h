// Router policies beyond round robin and least outstanding requests (internal to the registry
// in router.cpp; behaviour in docs/scenario.md, "Routers").
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "sim/router.h"

namespace tidal::sim {

std::unique_ptr<Router> make_random_router(uint64_t seed);
std::unique_ptr<Router> make_least_tokens_router();
std::unique_ptr<Router> make_power_of_two_router(uint64_t seed);
std::unique_ptr<Router> make_session_affinity_router(const RouterSpec& spec);
std::unique_ptr<Router> make_prefix_aware_router(const RouterSpec& spec);
std::unique_ptr<Router> make_cache_aware_router(const RouterSpec& spec);
std::unique_ptr<Router> make_lora_affinity_router(const RouterSpec& spec);

// Shared by the policies: the usable replica with the fewest outstanding requests (lowest
// index on ties), or -1.
int32_t least_outstanding_replica(std::span<const ReplicaLoad> replicas);
// Mean outstanding requests over usable replicas (0 when none).
double mean_outstanding(std::span<const ReplicaLoad> replicas);
// More outstanding requests than load_factor x mean + 1.
bool is_overloaded(const ReplicaLoad& load, double mean, double load_factor);

}  // namespace tidal::sim
