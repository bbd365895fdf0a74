// Routers: which replica an arriving request goes to. Small classes behind one interface,
// chosen by name from a registry (RouterSpec::policy). A router sees every replica's load
// through a view the cluster keeps up to date in place.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "sim/replica_state.h"
#include "traces/request.h"

namespace tidal::sim {

// What a router may know about one replica.
struct ReplicaLoad {
  int32_t pool = 0;
  ReplicaState state = ReplicaState::warm;
  int64_t num_outstanding = 0;  // routed here and not finished
  int64_t num_waiting = 0;      // queued in its scheduler, not yet running
  double kv_usage = 0.0;        // used share of its GPU KV blocks
};

class Router {
 public:
  virtual ~Router() = default;
  // The index of the replica that gets `request`, or -1 when no replica is warm.
  virtual int32_t route(const Request& request, std::span<const ReplicaLoad> replicas) = 0;
};

// Registered names, in registry order: round_robin, least_outstanding_requests.
std::span<const std::string_view> router_names();
// `name` must be one of router_names() (the scenario loader checks); std::logic_error else.
std::unique_ptr<Router> make_router(std::string_view name);

}  // namespace tidal::sim
