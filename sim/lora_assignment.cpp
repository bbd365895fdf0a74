#include "sim/lora_assignment.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <fmt/format.h>

#include "base/input_error.h"
#include "traces/random.h"

namespace tidal::sim {

namespace {

constexpr uint64_t kAdapterStream = 0xada0'0000'0000'0000ULL;  // workloads' adapter draws

// Cumulative Zipf weights of a workload's adapters.
std::vector<double> zipf_cumulative(const WorkloadAdapters& spec) {
  std::vector<double> cumulative;  // [count]
  cumulative.reserve(static_cast<size_t>(spec.count));
  double sum = 0.0;
  for (int64_t i = 0; i < spec.count; ++i) {
    sum += 1.0 / std::pow(static_cast<double>(i + 1), spec.zipf);
    cumulative.push_back(sum);
  }
  return cumulative;
}

}  // namespace

std::span<const char> AdapterRouting::pools_for(int64_t request) const {
  if (of_request.empty()) return {};
  const int32_t adapter = of_request[static_cast<size_t>(request)];
  if (adapter < 0) return {};
  return pools[static_cast<size_t>(adapter)];
}

AdapterRouting assign_adapters(const Scenario& scenario, RequestTable& table) {
  std::vector<Request>& requests = table.requests;
  std::vector<std::vector<double>> cumulative(scenario.workloads.size());  // [workloads][count]
  for (size_t w = 0; w < scenario.workloads.size(); ++w) {
    if (scenario.workloads[w].adapters)
      cumulative[w] = zipf_cumulative(*scenario.workloads[w].adapters);
  }
  for (size_t i = 0; i < requests.size(); ++i) {
    const auto w = static_cast<size_t>(table.workload[i]);
    if (!requests[i].adapter.empty() || cumulative[w].empty()) continue;
    traces::Rng rng(traces::derive_seed(scenario.seed ^ kAdapterStream, i));
    const double draw = rng.uniform01() * cumulative[w].back();
    const auto pick = static_cast<size_t>(
        std::upper_bound(cumulative[w].begin(), cumulative[w].end(), draw) - cumulative[w].begin());
    requests[i].adapter = fmt::format("{}{}", scenario.workloads[w].adapters->prefix,
                                      std::min(pick, cumulative[w].size() - 1));
  }
  AdapterRouting a;
  const bool any = std::any_of(requests.begin(), requests.end(),
                               [](const Request& r) { return !r.adapter.empty(); });
  if (!any) return a;
  for (size_t p = 0; p < scenario.pools.size(); ++p) {
    if (scenario.pools[p].role != fleet::PoolRole::both) {
      throw InputError(
          fmt::format("{}: fleet.pools[{}].role: requests name LoRA adapters, and "
                      "adapters on disaggregated pools are not modelled",
                      scenario.file, p));
    }
  }
  a.of_request.assign(requests.size(), -1);
  std::unordered_map<std::string, int32_t> index;  // adapter name -> index into a.adapters
  for (size_t i = 0; i < requests.size(); ++i) {
    const Request& r = requests[i];
    if (r.adapter.empty()) continue;
    auto [it, added] = index.try_emplace(r.adapter, static_cast<int32_t>(a.adapters.size()));
    if (added) {
      a.adapters.push_back(r.adapter);
      std::vector<char> serving(scenario.pools.size(), 0);
      for (size_t p = 0; p < scenario.pools.size(); ++p) {
        const PoolSpec& pool = scenario.pools[p];
        serving[p] =
            pool.role != fleet::PoolRole::decode && pool.lora && pool.lora->serves(r.adapter);
      }
      a.pools.push_back(std::move(serving));
    }
    const std::vector<char>& serving = a.pools[static_cast<size_t>(it->second)];
    bool served = false;
    for (size_t p = 0; p < scenario.pools.size() && !served; ++p) {
      served = serving[p] != 0 && (r.model.empty() || scenario.pools[p].model == r.model);
    }
    if (!served) {
      std::string lora_pools;
      for (const PoolSpec& pool : scenario.pools) {
        if (pool.lora) lora_pools += (lora_pools.empty() ? "" : ", ") + pool.name;
      }
      throw InputError(fmt::format(
          "{}: workloads[{}]: request {} asks for LoRA adapter {}{}, which no pool serves "
          "(pools with lora: {})",
          scenario.file, table.workload[i], r.id, nlohmann::json(r.adapter).dump(),
          r.model.empty() ? "" : " of " + r.model.str(), lora_pools.empty() ? "none" : lora_pools));
    }
    a.of_request[i] = it->second;
  }
  return a;
}

}  // namespace tidal::sim
