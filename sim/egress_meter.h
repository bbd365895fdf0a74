// What moving bytes across priced links costs in one run (docs/fleet.md, "Egress"). A network
// link's egress_per_gb is paid for every byte that crosses it either way; traffic between two
// regions crosses the links of their shortest (lowest-latency) path. Three flows are metered:
//   request   client region -> the serving replica's region, each time the router sends it
//             (a spot re-queue or a cascade's second run sends it again);
//   response  the replica's region -> the client region, per streamed chunk (one per step that
//             produced tokens for the request): its tokens' bytes plus the chunk framing;
//   kv        a disaggregated request's KV over its kv_transfer link, at that link's price.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/fleet/network.h"
#include "sim/scenario.h"
#include "traces/request.h"

namespace tidal::sim {

struct EgressFlow {
  double bytes = 0.0;
  double dollars = 0.0;
};

struct EgressPoolTotals {
  EgressFlow request;   // prompts its replicas were sent
  EgressFlow response;  // answers its replicas streamed
  EgressFlow kv;        // KV its replicas sent to decode pools
  double dollars() const { return request.dollars + response.dollars + kv.dollars; }
};

struct EgressReport {
  std::vector<EgressPoolTotals> by_pool;  // [num_pools]
  std::vector<EgressFlow> by_link;        // [network links]: bytes that crossed it, its dollars
  std::vector<EgressFlow> by_kv_link;     // [kv_transfer links]
  // Every pool's flows added up, pool by pool.
  EgressPoolTotals total() const;
  double dollars() const { return total().dollars(); }
};

class EgressMeter {
 public:
  // `network` may be null (a scenario whose only priced links are kv_transfer links).
  EgressMeter(const Scenario& scenario, const fleet::NetworkGraph* network);

  // The dollars of sending `request` from client region `client` to a replica of `pool` in
  // region `site` (-1 client: no network, nothing crosses a priced link).
  double add_request(const Request& request, int32_t pool, int32_t client, int32_t site);
  // The dollars of streaming a chunk of `num_tokens` tokens, its output tokens
  // [num_done, num_done + num_tokens), from a replica of `pool` in `site` to `client`.
  double add_response(const Request& request, int64_t num_done, int64_t num_tokens, int32_t pool,
                      int32_t site, int32_t client);
  // The dollars of `bytes` of KV sent by `pool` over kv_transfer link `kv_link`.
  double add_kv(double bytes, int32_t pool, int32_t kv_link);

  const EgressReport& report() const { return report_; }

 private:
  // Adds `bytes` between two regions to the links they cross; returns the dollars.
  double cross(double bytes, int32_t from, int32_t to);

  fleet::WireBytes wire_;
  int32_t num_regions_ = 0;
  // [num_regions * num_regions] links on the shortest path, `from`'s first.
  std::vector<std::vector<int32_t>> path_links_;
  std::vector<double> link_dollars_per_byte_;     // [network links]
  std::vector<double> kv_link_dollars_per_byte_;  // [kv_transfer links]
  EgressReport report_;
};

}  // namespace tidal::sim
