#include "sim/cluster.h"

#include "sim/scenario_kv_tiers.h"
#include "traces/random.h"

namespace tidal::sim {
namespace {

constexpr uint64_t kAcceptanceStream = 0x5eec'0000'0000'0000ULL;  // seeds of acceptance models

}  // namespace

Cluster::Cluster(const Scenario& scenario)
    : scenario_(scenario), remote_tier_(make_remote_tier(scenario.pools)) {
  if (scenario.network) network_.emplace(*scenario.network);
  for (const PoolSpec& pool : scenario.pools) {
    pool_sites_.push_back(network_ ? *network_->find_region(pool.region) : -1);
    entry_pools_.push_back(pool.role != fleet::PoolRole::decode ? 1 : 0);
  }
  pool_filter_ = entry_pools_;
  for (size_t p = 0; p < scenario.pools.size(); ++p) {
    for (int32_t k = 0; k < scenario.pools[p].num_replicas; ++k) {
      add_replica(static_cast<int32_t>(p), ReplicaState::warm);
    }
  }
}

int32_t Cluster::add_replica(int32_t pool, ReplicaState state) {
  const auto index = static_cast<int32_t>(replicas_.size());
  const PoolSpec& spec = scenario_.pools[static_cast<size_t>(pool)];
  const uint64_t seed =
      traces::derive_seed(scenario_.seed ^ kAcceptanceStream, static_cast<uint64_t>(index));
  // One work counter per pool: its memo of step work serves every replica of the pool.
  if (work_counters_.size() <= static_cast<size_t>(pool)) {
    work_counters_.resize(scenario_.pools.size());
    counted_pools_.resize(scenario_.pools.size(), 0);
  }
  if (counted_pools_[static_cast<size_t>(pool)] == 0) {
    work_counters_[static_cast<size_t>(pool)] = Replica::make_work_counter(spec);
    counted_pools_[static_cast<size_t>(pool)] = 1;
  }
  replicas_.push_back(std::make_unique<Replica>(
      index, pool, spec, scenario_.metrics.long_prefill_tokens, seed, remote_tier_,
      scenario_.slo_classes, work_counters_[static_cast<size_t>(pool)], scenario_.step_by_step));
  Replica& r = *replicas_.back();
  r.state = state;
  r.site = pool_sites_[static_cast<size_t>(pool)];
  if (spec.autoscaler.max_inputs) r.max_inputs = *spec.autoscaler.max_inputs;
  loads_.emplace_back();
  refresh_load(index);
  return index;
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
  load.num_waiting = r.released() ? 0 : r.scheduler().num_waiting();
  load.kv_usage = r.released() ? 0.0 : r.scheduler().kv_usage();
  load.block_manager = r.released() ? nullptr : &r.block_manager();
  load.lora = r.lora_cache();
  load.num_outstanding_tokens = r.num_outstanding_tokens;
  load.accepting = r.num_outstanding < r.max_inputs &&
                   (site_restriction_ < 0 || r.site == site_restriction_) &&
                   pool_filter_[static_cast<size_t>(r.pool())];
}

void Cluster::restrict_to_site(int32_t site) {
  site_restriction_ = site;
  for (int32_t i = 0; i < num_replicas(); ++i) refresh_load(i);
}

void Cluster::restrict_to_pools(std::span<const char> pools) {
  pool_filter_.assign(pools.begin(), pools.end());
  for (int32_t i = 0; i < num_replicas(); ++i) refresh_load(i);
}

}  // namespace tidal::sim
