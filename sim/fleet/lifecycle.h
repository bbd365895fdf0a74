// Lifecycle states of a fleet replica, as the fleet mechanisms (billing, autoscaling) see them:
//   requested -> provisioning -> loading -> warm -> draining -> stopped
// The simulator's own ReplicaState (sim/replica_state.h) may be coarser; the event loop maps
// its states onto these when it reports to a BillingLedger or fills a FleetObservation.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace tidal::fleet {

enum class LifecycleState : uint8_t {
  requested,     // the autoscaler asked for it; nothing acquired yet
  provisioning,  // acquiring the VM / GPUs
  loading,       // image pull, weight load or snapshot restore, engine init, KV allocation
  warm,          // serving requests
  draining,      // finishing its requests, taking no new ones
  stopped,       // released
};
inline constexpr int kNumLifecycleStates = 6;

inline constexpr std::array<std::string_view, kNumLifecycleStates> kLifecycleStateNames{
    "requested", "provisioning", "loading", "warm", "draining", "stopped"};

inline std::string_view lifecycle_state_name(LifecycleState state) {
  return kLifecycleStateNames[static_cast<size_t>(state)];
}

// Parses one of kLifecycleStateNames; anything else is an InputError
// "<where>: <path>: unknown lifecycle state "x"; expected one of requested, ...".
LifecycleState parse_lifecycle_state(std::string_view text, const std::string& where,
                                     const std::string& path);

}  // namespace tidal::fleet
