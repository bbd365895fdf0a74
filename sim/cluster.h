// The fleet: pools of identical replicas, and the load view routers read. Replica indices run
// over all pools: first the replicas each pool starts with (in scenario order), then every
// replica an autoscaler adds, in the order they are requested. Replicas are never removed
// (stopped ones stay, so indices in requests.csv stay valid).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "sim/fleet/network.h"
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

  // Adds a replica of pool `pool` in `state`; returns its index.
  int32_t add_replica(int32_t pool, ReplicaState state);

  // The routers' view, one entry per replica; refresh_load() after a replica changes.
  std::span<const ReplicaLoad> loads() const { return loads_; }
  void refresh_load(int32_t i);
  // Restricts `accepting` to replicas in network region `site` (-1: no restriction) until
  // the next call; refreshes every load.
  void restrict_to_site(int32_t site);
  // Restricts `accepting` to the replicas of pools flagged in `pools` ([num_pools]) until the
  // next call; refreshes every load. Without a call: the pools a request enters by (every
  // pool but decode pools).
  void restrict_to_pools(std::span<const char> pools);
  const std::vector<char>& entry_pools() const { return entry_pools_; }

  // The scenario's network with each pool's region index, or empty.
  const std::optional<fleet::NetworkGraph>& network() const { return network_; }
  int32_t pool_site(int32_t pool) const { return pool_sites_[static_cast<size_t>(pool)]; }

 private:
  const Scenario& scenario_;
  std::optional<fleet::NetworkGraph> network_;
  std::vector<int32_t> pool_sites_;                 // [num_pools] region index or -1
  std::vector<std::unique_ptr<Replica>> replicas_;  // [num_replicas]
  // [num_pools] each pool's step-work counter (null where it has none), made with its first
  // replica; counted_pools_ marks the pools made so far.
  std::vector<std::shared_ptr<const perf::StepWorkCounter>> work_counters_;
  std::vector<char> counted_pools_;          // [num_pools]
  std::shared_ptr<kv::KvTier> remote_tier_;  // the pools' shared remote KV tier, or null
  std::vector<ReplicaLoad> loads_;           // [num_replicas]
  int32_t site_restriction_ = -1;
  std::vector<char> entry_pools_;  // [num_pools] pools whose role is not decode
  std::vector<char> pool_filter_;  // [num_pools] pools whose replicas may accept now
};

}  // namespace tidal::sim
