// Lifecycle of a replica. Only `warm` replicas take requests. This release provisions every
// replica warm for the whole run; autoscaling and cold starts move replicas through the others.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace tidal::sim {

enum class ReplicaState : uint8_t {
  starting,  // provisioned and billed, loading weights (a cold start)
  warm,      // serving
  draining,  // finishing its requests, taking no new ones
  stopped,   // released, not billed
};
inline constexpr int kNumReplicaStates = 4;

inline constexpr std::array<std::string_view, kNumReplicaStates> kReplicaStateNames{
    "starting", "warm", "draining", "stopped"};

inline std::string_view replica_state_name(ReplicaState state) {
  return kReplicaStateNames[static_cast<size_t>(state)];
}

}  // namespace tidal::sim
