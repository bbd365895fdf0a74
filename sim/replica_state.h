// Lifecycle of a replica: the fleet's states (sim/fleet/lifecycle.h), so timeline.csv, the
// billing ledger and the autoscalers all see the same ones:
//   requested -> provisioning -> loading -> warm -> draining -> stopped
// Only `warm` replicas take requests. Replicas a pool starts with are warm at time 0; replicas
// an autoscaler adds go through the cold start (docs/scenario.md, "Autoscaling").
#pragma once

#include <string_view>

#include "sim/fleet/lifecycle.h"

namespace tidal::sim {

using ReplicaState = fleet::LifecycleState;
inline constexpr int kNumReplicaStates = fleet::kNumLifecycleStates;

inline std::string_view replica_state_name(ReplicaState state) {
  return fleet::lifecycle_state_name(state);
}

}  // namespace tidal::sim
