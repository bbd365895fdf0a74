#include "sim/cluster.h"

namespace tidal::sim {

Cluster::Cluster(const Scenario& scenario) : scenario_(scenario) {
  for (size_t p = 0; p < scenario.pools.size(); ++p) {
    for (int32_t k = 0; k < scenario.pools[p].num_replicas; ++k) {
      const auto index = static_cast<int32_t>(replicas_.size());
      replicas_.push_back(
          std::make_unique<Replica>(index, static_cast<int32_t>(p), scenario.pools[p]));
    }
  }
  loads_.resize(replicas_.size());
  for (int32_t i = 0; i < num_replicas(); ++i) refresh_load(i);
}

const PoolSpec& Cluster::pool_of(int32_t replica) const {
  return scenario_.pools[static_cast<size_t>(this->replica(replica).pool())];
}

void Cluster::refresh_load(int32_t i) {
  const Replica& r = replica(i);
  ReplicaLoad& load = loads_[static_cast<size_t>(i)];
  load.pool = r.pool();
  load.state = r.state;
  load.num_outstanding = r.num_outstanding;
  load.num_waiting = r.scheduler().num_waiting();
  load.kv_usage = r.scheduler().kv_usage();
}

}  // namespace tidal::sim
