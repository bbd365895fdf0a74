// The network between client regions, edge sites and GPU regions: a graph with one-way link
// latencies, and the shortest-path latency from every region to every other (Dijkstra from
// each region, Boost.Graph). Links are symmetric. A request from client region c served in
// region s waits latency(c, s) on the way in and again for each token on the way back, so TTFT
// and E2E grow by the round trip (docs/fleet.md, "Network").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/fleet/energy_model.h"

namespace tidal::fleet {

enum class RegionKind : uint8_t {
  client,  // requests originate here; hosts no replicas
  edge,    // an edge site: may host replicas, may relay traffic
  gpu,     // a GPU region: hosts replicas, may relay traffic
};
std::string_view region_kind_name(RegionKind kind);

struct RegionSpec {
  std::string name;
  RegionKind kind = RegionKind::gpu;
  // Its PUE, carbon intensity and electricity price where given (hosting regions only), over
  // the scenario's `energy` object for the pools it hosts (docs/fleet.md, "Energy and carbon").
  SiteEnergyKeys energy;
};

struct LinkSpec {
  std::string from;
  std::string to;
  double latency_ms = 0.0;  // one way
  // Dollars per GB (1e9 bytes) crossing the link either way (docs/fleet.md, "Egress").
  double egress_per_gb = 0.0;
};

// What a request and its answer weigh on the wire, for egress dollars (docs/fleet.md,
// "Egress"). Defaults: 4 bytes of text per token, OpenAI's rule of thumb for English ("one
// token is about 4 characters"), and no framing; a request's own request_bytes /
// response_bytes replace the token figures.
struct WireBytes {
  double request_bytes_per_token = 4.0;   // prompt text sent to the serving region
  double response_bytes_per_token = 4.0;  // output text streamed back
  // Framing of each streamed chunk (one per step that produced tokens for the request): an
  // OpenAI-style server-sent `chat.completion.chunk` event carries about 200 bytes of JSON
  // besides its text.
  double response_bytes_per_chunk = 0.0;
};

struct NetworkSpec {
  std::vector<RegionSpec> regions;  // names unique
  std::vector<LinkSpec> links;      // endpoints name regions; no self links, no duplicates
  WireBytes wire;

  // Some link has a non-zero egress_per_gb.
  bool prices_egress() const;
};

// Parses {"regions": [{"name", "kind"}], "links": [{"from", "to", "latency_ms",
// "egress_per_gb"}], "request_bytes_per_token", "response_bytes_per_token",
// "response_bytes_per_chunk"}; a hosting region may also give kSiteEnergyKeys. Unknown keys, energy
// keys on a client region, unknown or duplicate region names, self links, duplicate links, negative
// latencies, and a network without a client region or without a hosting (edge or gpu) region are
// InputErrors naming `where` and the JSON path.
NetworkSpec parse_network_spec(const nlohmann::json& json, const std::string& where,
                               const std::string& path);

class NetworkGraph {
 public:
  // `spec` as parse_network_spec returns it (std::logic_error on dangling link names).
  explicit NetworkGraph(NetworkSpec spec);

  const NetworkSpec& spec() const { return spec_; }
  int32_t num_regions() const { return static_cast<int32_t>(spec_.regions.size()); }
  const RegionSpec& region(int32_t index) const { return spec_.regions[index]; }
  std::optional<int32_t> find_region(std::string_view name) const;

  // One-way latency of the shortest path in seconds; empty when `to` is unreachable.
  std::optional<double> latency_s(int32_t from, int32_t to) const;
  // Regions along the shortest path, `from` first and `to` last; empty when unreachable.
  std::vector<int32_t> path(int32_t from, int32_t to) const;
  // Indices into spec().links of the links along that path, `from`'s first.
  std::vector<int32_t> path_links(int32_t from, int32_t to) const;
  // Hosting regions (edge and gpu) reachable from `from`, nearest first, ties in spec order.
  std::vector<int32_t> nearest_sites(int32_t from) const;

  // The index of region `name`, which must be a hosting region (for a pool's placement) or,
  // with `client` true, a client region. InputError "<where>: <path>: unknown region "x";
  // regions: a, b" or "... region "x" is a client region; pools need an edge or gpu region".
  int32_t require_region(std::string_view name, bool client, const std::string& where,
                         const std::string& path) const;
  // Every client region must reach at least one of `pool_sites`; InputError naming the first
  // client region that reaches none.
  void require_clients_served(const std::vector<int32_t>& pool_sites, const std::string& where,
                              const std::string& path) const;

 private:
  NetworkSpec spec_;
  std::vector<std::vector<double>> distance_ms_;  // [num_regions][num_regions], +inf unreachable
  std::vector<std::vector<int32_t>>
      predecessor_;  // [num_regions][num_regions] on the shortest path
};

}  // namespace tidal::fleet
