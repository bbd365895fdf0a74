#include "sim/fleet/network.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <nlohmann/json.hpp>

#include "perf/json_reader.h"

namespace tidal::fleet {

namespace {

using Graph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, boost::no_property,
                          boost::property<boost::edge_weight_t, double>>;

constexpr double kUnreachable = std::numeric_limits<double>::infinity();

}  // namespace

NetworkGraph::NetworkGraph(NetworkSpec spec) : spec_(std::move(spec)) {
  const auto num = static_cast<size_t>(num_regions());
  Graph graph(num);
  for (const LinkSpec& link : spec_.links) {
    const std::optional<int32_t> from = find_region(link.from);
    const std::optional<int32_t> to = find_region(link.to);
    if (!from || !to) throw std::logic_error("NetworkGraph: link names an unknown region");
    boost::add_edge(static_cast<size_t>(*from), static_cast<size_t>(*to), link.latency_ms, graph);
  }
  distance_ms_.assign(num, std::vector<double>(num, kUnreachable));
  predecessor_.assign(num, std::vector<int32_t>(num, -1));
  std::vector<size_t> predecessors(num);  // [num_regions]
  for (size_t source = 0; source < num; ++source) {
    boost::dijkstra_shortest_paths(graph, source,
                                   boost::predecessor_map(predecessors.data())
                                       .distance_map(distance_ms_[source].data())
                                       .distance_inf(kUnreachable));
    for (size_t v = 0; v < num; ++v)
      predecessor_[source][v] = static_cast<int32_t>(predecessors[v]);
  }
}

std::optional<int32_t> NetworkGraph::find_region(std::string_view name) const {
  for (size_t i = 0; i < spec_.regions.size(); ++i) {
    if (spec_.regions[i].name == name) return static_cast<int32_t>(i);
  }
  return std::nullopt;
}

std::optional<double> NetworkGraph::latency_s(int32_t from, int32_t to) const {
  const double ms = distance_ms_[from][to];
  if (ms == kUnreachable) return std::nullopt;
  return ms / 1000.0;
}

std::vector<int32_t> NetworkGraph::path(int32_t from, int32_t to) const {
  if (distance_ms_[from][to] == kUnreachable) return {};
  std::vector<int32_t> regions{to};  // [num_hops + 1], built backwards
  while (regions.back() != from) regions.push_back(predecessor_[from][regions.back()]);
  std::reverse(regions.begin(), regions.end());
  return regions;
}

std::vector<int32_t> NetworkGraph::path_links(int32_t from, int32_t to) const {
  const std::vector<int32_t> regions = path(from, to);
  std::vector<int32_t> links;  // [num_hops]
  for (size_t hop = 1; hop < regions.size(); ++hop) {
    const std::string& a = spec_.regions[regions[hop - 1]].name;
    const std::string& b = spec_.regions[regions[hop]].name;
    const auto it = std::find_if(spec_.links.begin(), spec_.links.end(), [&](const LinkSpec& l) {
      return (l.from == a && l.to == b) || (l.from == b && l.to == a);
    });
    links.push_back(static_cast<int32_t>(it - spec_.links.begin()));
  }
  return links;
}

std::vector<int32_t> NetworkGraph::nearest_sites(int32_t from) const {
  std::vector<int32_t> sites;  // [num_reachable_sites]
  for (int32_t r = 0; r < num_regions(); ++r) {
    if (spec_.regions[r].kind != RegionKind::client && distance_ms_[from][r] != kUnreachable) {
      sites.push_back(r);
    }
  }
  std::stable_sort(sites.begin(), sites.end(), [&](int32_t a, int32_t b) {
    return distance_ms_[from][a] < distance_ms_[from][b];
  });
  return sites;
}

int32_t NetworkGraph::require_region(std::string_view name, bool client, const std::string& where,
                                     const std::string& path) const {
  // Quoted as JSON: a name read from a trace may hold a newline or other control bytes.
  const std::string quoted = nlohmann::json(std::string(name)).dump();
  const std::optional<int32_t> index = find_region(name);
  if (!index) {
    std::string names;
    for (const RegionSpec& region : spec_.regions) {
      names += (names.empty() ? "" : ", ") + region.name;
    }
    perf::throw_json_error(where, path,
                           fmt::format("unknown region {}; regions: {}", quoted, names));
  }
  const RegionKind kind = spec_.regions[*index].kind;
  if (client && kind != RegionKind::client) {
    perf::throw_json_error(where, path,
                           fmt::format("region {} is a {} region; requests come from client "
                                       "regions",
                                       quoted, region_kind_name(kind)));
  }
  if (!client && kind == RegionKind::client) {
    perf::throw_json_error(where, path,
                           fmt::format("region {} is a client region; pools need an edge or "
                                       "gpu region",
                                       quoted));
  }
  return *index;
}

void NetworkGraph::require_clients_served(const std::vector<int32_t>& pool_sites,
                                          const std::string& where, const std::string& path) const {
  for (int32_t r = 0; r < num_regions(); ++r) {
    if (spec_.regions[r].kind != RegionKind::client) continue;
    const bool served = std::any_of(pool_sites.begin(), pool_sites.end(), [&](int32_t site) {
      return distance_ms_[r][site] != kUnreachable;
    });
    if (!served) {
      std::string sites;
      for (int32_t site : pool_sites) {
        sites += (sites.empty() ? "" : ", ") + spec_.regions[site].name;
      }
      perf::throw_json_error(where, path,
                             fmt::format("client region \"{}\" reaches none of the pools' regions "
                                         "({})",
                                         spec_.regions[r].name, sites));
    }
  }
}

}  // namespace tidal::fleet
