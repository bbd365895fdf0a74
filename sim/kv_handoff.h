// Disaggregated serving's hand-off (docs/fleet.md, "Disaggregated prefill and decode"): a
// request prefilled on a prefill pool continues on a decode replica the decode router picks
// among the pools linked to it; its KV crosses the link as a transfer sharing bandwidth with
// the others (fleet::KvTransfers). The simulator books requests; this holds where they go, how
// many bytes move, and the transfers in flight.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "sim/cluster.h"
#include "sim/fleet/kv_transfers.h"
#include "sim/router.h"
#include "sim/scenario.h"

namespace tidal::sim {

class KvHandoff {
 public:
  // `seed` drives a seeded decode router (random, power_of_two).
  KvHandoff(const Scenario& scenario, uint64_t seed);

  // Whether requests whose first token comes from `pool` continue elsewhere.
  bool hands_off(int32_t pool) const {
    return scenario_.pools[static_cast<size_t>(pool)].role == fleet::PoolRole::prefill;
  }
  // A usable decode replica for `request` prefilled on `prefill_pool` (the scenario's router
  // policy over the linked decode pools' replicas), or -1 when none can take it now.
  int32_t choose_decode(const Request& request, int32_t prefill_pool, Cluster& cluster);
  // The link from `prefill_pool` to `decode_pool` (both linked: choose_decode's pools).
  int32_t link_of(int32_t prefill_pool, int32_t decode_pool) const;
  // Bytes of `num_tokens` tokens' KV the decode pool's GPUs receive: its per-GPU KV per token
  // (every growing layer, its TP share: MLA's latent whole on every rank) times its TP, plus one
  // sequence's share of its sliding-window reserve and, for a linear-attention model, its
  // recurrent state.
  double kv_bytes(int32_t decode_pool, int64_t num_tokens) const;
  int64_t latency_ns(int32_t link) const { return latency_ns_[static_cast<size_t>(link)]; }

  fleet::KvTransfers& transfers() { return transfers_; }
  const fleet::KvTransfers& transfers() const { return transfers_; }
  // Prefilled requests waiting for a decode replica to take them, first in first out.
  std::deque<int64_t>& waiting() { return waiting_; }

 private:
  const Scenario& scenario_;
  std::unique_ptr<Router> router_;
  fleet::KvTransfers transfers_;
  std::vector<std::vector<char>> decode_pools_of_;  // [num_pools][num_pools] linked decode pools
  std::vector<int64_t> latency_ns_;                 // [num links]
  std::deque<int64_t> waiting_;
};

}  // namespace tidal::sim
