#include "sim/lora_summary.h"

#include <algorithm>
#include <set>
#include <string>

namespace tidal::sim {

nlohmann::ordered_json lora_summary_json(const Scenario& scenario, const RunResult& result) {
  using ojson = nlohmann::ordered_json;
  if (std::none_of(scenario.pools.begin(), scenario.pools.end(),
                   [](const PoolSpec& p) { return p.lora.has_value(); })) {
    return nullptr;
  }
  std::set<std::string> adapters;
  int64_t num_adapter_requests = 0;
  for (const Request& r : result.table.requests) {
    if (r.adapter.empty()) continue;
    adapters.insert(r.adapter);
    ++num_adapter_requests;
  }
  ojson pools = ojson::array();
  for (size_t p = 0; p < scenario.pools.size(); ++p) {
    const PoolSpec& spec = scenario.pools[p];
    if (!spec.lora) continue;
    LoraStats sum;
    int64_t num_skips = 0;
    for (const ReplicaSummary& r : result.replicas) {
      if (r.pool != static_cast<int32_t>(p)) continue;
      sum.num_loads += r.lora.num_loads;
      sum.num_hits += r.lora.num_hits;
      sum.num_evictions += r.lora.num_evictions;
      sum.load_s += r.lora.load_s;
      sum.num_steps += r.lora.num_steps;
      sum.num_adapter_steps += r.lora.num_adapter_steps;
      num_skips += r.scheduler.num_lora_skips;
    }
    const int64_t num_uses = sum.num_loads + sum.num_hits;
    ojson pool{{"pool", spec.name},
               {"adapter_bytes", spec.lora->adapter_bytes},
               {"num_loads", sum.num_loads},
               {"num_hits", sum.num_hits},
               {"num_evictions", sum.num_evictions}};
    pool["hit_ratio"] =
        num_uses > 0 ? ojson(static_cast<double>(sum.num_hits) / static_cast<double>(num_uses))
                     : ojson(nullptr);
    pool["load_s"] = sum.load_s;
    pool["mean_adapters_per_step"] =
        sum.num_steps > 0
            ? ojson(static_cast<double>(sum.num_adapter_steps) / static_cast<double>(sum.num_steps))
            : ojson(nullptr);
    pool["num_lora_skips"] = num_skips;
    pools.push_back(std::move(pool));
  }
  return ojson{{"num_adapters", adapters.size()},
               {"num_adapter_requests", num_adapter_requests},
               {"pools", pools}};
}

}  // namespace tidal::sim
