#include "sim/request_regions.h"

#include <algorithm>

#include <fmt/format.h>

#include "base/input_error.h"
#include "traces/random.h"

namespace tidal::sim {
namespace {

constexpr uint64_t kRegionStream = 0x4e61'0000'0000'0000ULL;  // seeds of region mixes

}  // namespace

void apply_token_caps(const Scenario& scenario, RequestTable& table) {
  for (size_t i = 0; i < table.requests.size(); ++i) {
    const WorkloadSpec& w = scenario.workloads[static_cast<size_t>(table.workload[i])];
    if (w.max_output_tokens) {
      table.requests[i].output_tokens =
          std::min(table.requests[i].output_tokens, *w.max_output_tokens);
    }
  }
}

std::vector<int32_t> assign_client_regions(const Scenario& scenario, RequestTable& table,
                                           const fleet::NetworkGraph& network) {
  const size_t num_workloads = scenario.workloads.size();
  std::vector<traces::Rng> rngs;  // [num_workloads] one stream per workload
  std::vector<std::vector<int32_t>> mix_regions(num_workloads);    // [w][mix entries]
  std::vector<std::vector<double>> mix_cumulative(num_workloads);  // [w][mix entries]
  std::vector<int32_t> fixed(num_workloads, -1);
  for (size_t w = 0; w < num_workloads; ++w) {
    const WorkloadSpec& spec = scenario.workloads[w];
    rngs.emplace_back(traces::derive_seed(scenario.seed ^ kRegionStream, w));
    const std::string path = fmt::format("workloads[{}]", w);
    if (spec.region)
      fixed[w] = network.require_region(*spec.region, true, scenario.file, path + ".region");
    double total = 0.0;
    for (const auto& [name, weight] : spec.region_mix) {
      mix_regions[w].push_back(
          network.require_region(name, true, scenario.file, path + ".region_mix"));
      total += weight;
      mix_cumulative[w].push_back(total);
    }
    for (double& c : mix_cumulative[w]) c /= total;
  }
  std::vector<int32_t> regions(table.requests.size(), -1);
  for (size_t i = 0; i < table.requests.size(); ++i) {
    const auto w = static_cast<size_t>(table.workload[i]);
    Request& r = table.requests[i];
    int32_t region = fixed[w];
    if (region < 0 && !mix_regions[w].empty()) {
      const double u = rngs[w].uniform01();
      size_t k = 0;
      while (k + 1 < mix_cumulative[w].size() && u >= mix_cumulative[w][k]) ++k;
      region = mix_regions[w][k];
    }
    if (region < 0) {
      if (r.region.empty()) {
        throw InputError(fmt::format(
            "{}: workloads[{}]: request {} carries no region; give the workload a \"region\" or "
            "\"region_mix\"",
            scenario.file, w, r.id));
      }
      region = network.require_region(r.region, true, scenario.file,
                                      fmt::format("workloads[{}] request {} region", w, r.id));
    }
    r.region = network.region(region).name;
    regions[i] = region;
  }
  return regions;
}

}  // namespace tidal::sim
