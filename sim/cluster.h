// The fleet: pools of identical replicas, and the load view routers read. Replica indices run
// over all pools in scenario order.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/replica.h"
#include "sim/router.h"
#include "sim/scenario.h"

namespace tidal::sim {

class Cluster {
 public:
  explicit Cluster(const Scenario& scenario);

  int32_t num_replicas() const { return static_cast<int32_t>(replicas_.size()); }
  Replica& replica(int32_t i) { return *replicas_[static_cast<size_t>(i)]; }
  const Replica& replica(int32_t i) const { return *replicas_[static_cast<size_t>(i)]; }
  const PoolSpec& pool_of(int32_t replica) const;

  // The routers' view, one entry per replica; refresh_load() after a replica changes.
  std::span<const ReplicaLoad> loads() const { return loads_; }
  void refresh_load(int32_t i);

 private:
  const Scenario& scenario_;
  std::vector<std::unique_ptr<Replica>> replicas_;  // [num_replicas]
  std::vector<ReplicaLoad> loads_;                  // [num_replicas]
};

}  // namespace tidal::sim
