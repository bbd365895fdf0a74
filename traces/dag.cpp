#include "traces/dag.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <unordered_map>

#include <fmt/format.h>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/exception.hpp>
#include <boost/graph/topological_sort.hpp>

#include "base/input_error.h"

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

// One cycle of the deps graph, as "request 3 waits on 5, 5 on 4, 4 on 3" (ids). Peels off every
// request whose deps can all finish; each request left waits on another one left, so walking
// those deps from any of them comes back around.
std::string describe_cycle(const std::vector<Request>& requests,
                           const std::unordered_map<int64_t, size_t>& index_of_id) {
  const size_t num_requests = requests.size();
  std::vector<int64_t> num_unfinished_deps(num_requests);     // [num_requests]
  std::vector<std::vector<size_t>> dependents(num_requests);  // [num_requests]
  for (size_t i = 0; i < num_requests; ++i) {
    for (const int64_t dep : requests[i].deps) {
      dependents[index_of_id.at(dep)].push_back(i);
      ++num_unfinished_deps[i];
    }
  }
  std::vector<size_t> ready;
  for (size_t i = 0; i < num_requests; ++i) {
    if (num_unfinished_deps[i] == 0) ready.push_back(i);
  }
  while (!ready.empty()) {
    const size_t done = ready.back();
    ready.pop_back();
    for (const size_t d : dependents[done]) {
      if (--num_unfinished_deps[d] == 0) ready.push_back(d);
    }
  }
  size_t at = 0;
  while (num_unfinished_deps[at] == 0) ++at;
  std::vector<size_t> walk_step(num_requests, num_requests);  // [num_requests] position on walk
  std::vector<size_t> walk;
  while (walk_step[at] == num_requests) {
    walk_step[at] = walk.size();
    walk.push_back(at);
    for (const int64_t dep : requests[at].deps) {
      const size_t next = index_of_id.at(dep);
      if (num_unfinished_deps[next] > 0) {
        at = next;
        break;
      }
    }
  }
  std::string text = fmt::format("request {} waits on", requests[at].id);
  for (size_t k = walk_step[at] + 1; k < walk.size(); ++k) {
    text += fmt::format(" {}, {} on", requests[walk[k]].id, requests[walk[k]].id);
  }
  return text + fmt::format(" {}", requests[at].id);
}

}  // namespace

DagAnalysis analyze_dag(const std::vector<Request>& requests) {
  const size_t num_requests = requests.size();
  std::unordered_map<int64_t, size_t> index_of_id;  // lookups only, never iterated
  index_of_id.reserve(num_requests);
  for (size_t i = 0; i < num_requests; ++i) {
    const auto [it, inserted] = index_of_id.emplace(requests[i].id, i);
    if (!inserted) {
      throw InputError(fmt::format("request {} (requests[{}]): id: also used by requests[{}]",
                                   requests[i].id, i, it->second));
    }
  }
  Graph graph(num_requests);
  std::vector<bool> in_dag(num_requests, false);  // [num_requests]
  DisjointSets groups(num_requests);
  for (size_t i = 0; i < num_requests; ++i) {
    for (const int64_t dep : requests[i].deps) {
      const auto it = index_of_id.find(dep);
      if (it == index_of_id.end()) {
        throw InputError(
            fmt::format("request {} (requests[{}]): deps: unknown id {}", requests[i].id, i, dep));
      }
      if (it->second == i) {
        throw InputError(
            fmt::format("request {} (requests[{}]): deps: depends on itself", requests[i].id, i));
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
    throw InputError("deps form a cycle: " + describe_cycle(requests, index_of_id));
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
