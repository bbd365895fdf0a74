#include "sim/kv_handoff.h"

#include <stdexcept>

#include "sim/fleet/spec_reading.h"

namespace tidal::sim {

KvHandoff::KvHandoff(const Scenario& scenario, uint64_t seed)
    : scenario_(scenario),
      router_(make_router(scenario.router, seed)),
      transfers_(scenario.kv_links),
      decode_pools_of_(scenario.pools.size(), std::vector<char>(scenario.pools.size(), 0)) {
  for (const fleet::KvLinkSpec& link : scenario.kv_links) {
    decode_pools_of_[static_cast<size_t>(link.from_pool)][static_cast<size_t>(link.to_pool)] = 1;
    latency_ns_.push_back(fleet::seconds_to_ns(link.latency_ms * 1e-3));
  }
}

int32_t KvHandoff::choose_decode(const Request& request, int32_t prefill_pool, Cluster& cluster) {
  cluster.restrict_to_pools(decode_pools_of_[static_cast<size_t>(prefill_pool)]);
  const int32_t target = router_->route(request, cluster.loads());
  cluster.restrict_to_pools(cluster.entry_pools());
  return target;
}

int32_t KvHandoff::link_of(int32_t prefill_pool, int32_t decode_pool) const {
  for (size_t l = 0; l < scenario_.kv_links.size(); ++l) {
    const fleet::KvLinkSpec& link = scenario_.kv_links[l];
    if (link.from_pool == prefill_pool && link.to_pool == decode_pool) {
      return static_cast<int32_t>(l);
    }
  }
  throw std::logic_error("KvHandoff::link_of: pools not linked");
}

double KvHandoff::kv_bytes(int32_t decode_pool, int64_t num_tokens) const {
  const PoolSpec& pool = scenario_.pools[static_cast<size_t>(decode_pool)];
  const double tp = pool.deployment.tp;
  // Every pipeline stage sends its own layers' share (perf::MemoryPlan, "all stages").
  const double per_seq_reserve = pool.memory.sliding_kv_reserve_bytes_all_stages /
                                 static_cast<double>(pool.deployment.max_num_seqs);
  // A linear-attention model's recurrent state goes along with the KV of its attention layers.
  return tp * (static_cast<double>(num_tokens) * pool.memory.kv_bytes_per_token_all_stages +
               per_seq_reserve + pool.memory.state_bytes_per_seq_all_stages);
}

}  // namespace tidal::sim
