#include "traces/dag.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <unordered_map>

#include <fmt/format.h>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/exception.hpp>
#include <boost/graph/topological_sort.hpp>

#include "traces/input_error.h"

namespace tidal::traces {
namespace {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;

// Union-find over request indices, to count connected groups.
class DisjointSets {
 public:
  explicit DisjointSets(size_t size) : parent_(size) {
    std::iota(parent_.begin(), parent_.end(), size_t{0});
  }
  size_t find(size_t x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  void join(size_t a, size_t b) { parent_[find(a)] = find(b); }

 private:
  std::vector<size_t> parent_;  // [size]
};

}  // namespace

DagAnalysis analyze_dag(const std::vector<Request>& requests) {
  const size_t num_requests = requests.size();
  std::unordered_map<int64_t, size_t> index_of_id;  // lookups only, never iterated
  index_of_id.reserve(num_requests);
  for (size_t i = 0; i < num_requests; ++i) {
    const auto [it, inserted] = index_of_id.emplace(requests[i].id, i);
    if (!inserted) {
      throw InputError(fmt::format("requests[{}].id: id {} is also used by requests[{}]", i,
                                   requests[i].id, it->second));
    }
  }
  Graph graph(num_requests);
  std::vector<bool> in_dag(num_requests, false);  // [num_requests]
  DisjointSets groups(num_requests);
  for (size_t i = 0; i < num_requests; ++i) {
    for (const int64_t dep : requests[i].deps) {
      const auto it = index_of_id.find(dep);
      if (it == index_of_id.end()) {
        throw InputError(fmt::format("requests[{}].deps: unknown id {}", i, dep));
      }
      if (it->second == i) {
        throw InputError(fmt::format("requests[{}].deps: request {} depends on itself", i, dep));
      }
      boost::add_edge(it->second, i, graph);
      in_dag[i] = in_dag[it->second] = true;
      groups.join(i, it->second);
    }
  }
  DagAnalysis analysis;
  std::vector<size_t> reverse_order;  // [num_requests] users before their deps
  reverse_order.reserve(num_requests);
  try {
    boost::topological_sort(graph, std::back_inserter(reverse_order));
  } catch (const boost::not_a_dag&) {
    throw InputError("requests: deps form a cycle");
  }
  analysis.topo_order.assign(reverse_order.rbegin(), reverse_order.rend());

  std::vector<int64_t> chain_requests(num_requests, 1);  // [num_requests] longest chain ending here
  std::vector<int64_t> chain_tokens(num_requests);       // [num_requests] its output tokens
  for (size_t i = 0; i < num_requests; ++i) chain_tokens[i] = requests[i].output_tokens;
  for (const int64_t node : analysis.topo_order) {
    const auto from = static_cast<size_t>(node);
    for (const auto edge : boost::make_iterator_range(boost::out_edges(from, graph))) {
      const size_t to = boost::target(edge, graph);
      chain_requests[to] = std::max(chain_requests[to], chain_requests[from] + 1);
      chain_tokens[to] =
          std::max(chain_tokens[to], chain_tokens[from] + requests[to].output_tokens);
    }
  }
  std::vector<bool> is_group_root(num_requests, false);  // [num_requests]
  for (size_t i = 0; i < num_requests; ++i) {
    if (!in_dag[i]) continue;
    ++analysis.num_dag_requests;
    const size_t root = groups.find(i);
    if (!is_group_root[root]) {
      is_group_root[root] = true;
      ++analysis.num_dags;
    }
    analysis.critical_path_requests = std::max(analysis.critical_path_requests, chain_requests[i]);
    analysis.critical_path_output_tokens =
        std::max(analysis.critical_path_output_tokens, chain_tokens[i]);
  }
  return analysis;
}

}  // namespace tidal::traces
