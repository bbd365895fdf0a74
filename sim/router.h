// Routers: which replica an arriving request goes to. Small classes behind one interface,
// chosen by name from a registry (RouterSpec::policy). A router sees every replica's load
// through a view the cluster keeps up to date in place.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "engine/kv/block_manager.h"
#include "sim/lora_cache.h"
#include "sim/replica_state.h"
#include "sim/scenario.h"
#include "traces/request.h"

namespace tidal::sim {

// What a router may know about one replica.
struct ReplicaLoad {
  int32_t pool = 0;
  ReplicaState state = ReplicaState::warm;
  int64_t num_outstanding = 0;  // routed here and not finished
  int64_t num_waiting = 0;      // queued in its scheduler, not yet running
  double kv_usage = 0.0;        // used share of its GPU KV blocks
  // Prompt tokens not yet computed plus output tokens not yet produced, of its outstanding
  // requests (least_outstanding_tokens).
  int64_t num_outstanding_tokens = 0;
  // False while it holds its pool's max_inputs requests, or lies outside the region the
  // request is routed to (nearest region first).
  bool accepting = true;
  const kv::BlockManager* block_manager = nullptr;  // its prefix cache (cache_aware), or null
  const LoraCache* lora = nullptr;  // its loaded LoRA adapters (lora_affinity), or null
};

// Whether a router may send a request to this replica: warm and accepting.
inline bool is_usable(const ReplicaLoad& load) {
  return load.state == ReplicaState::warm && load.accepting;
}

class Router {
 public:
  virtual ~Router() = default;
  // The index of the replica that gets `request`, or -1 when no replica is usable.
  virtual int32_t route(const Request& request, std::span<const ReplicaLoad> replicas) = 0;
};

// Registered names, in registry order: round_robin, least_outstanding_requests, random,
// least_outstanding_tokens, power_of_two, session_affinity, prefix_aware, cache_aware,
// lora_affinity.
std::span<const std::string_view> router_names();
// `spec.policy` must be one of router_names() (the scenario loader checks); std::logic_error
// else. Seeded routers (random, power_of_two) draw from `seed`.
std::unique_ptr<Router> make_router(const RouterSpec& spec, uint64_t seed);
// make_router with the default knobs of RouterSpec and seed 0.
std::unique_ptr<Router> make_router(std::string_view name);

}  // namespace tidal::sim
