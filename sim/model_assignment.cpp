#include "sim/model_assignment.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "base/input_error.h"
#include "sim/scenario_model_router.h"
#include "traces/distribution.h"
#include "traces/random.h"

namespace tidal::sim {
namespace {

constexpr uint64_t kComplexityStream = 0xc0de'0000'0000'0000ULL;  // complexity draws
constexpr uint64_t kMisrouteStream = 0x3150'0000'0000'0000ULL;    // classifier errors

int32_t index_of(const std::vector<std::string>& names, const std::string& name) {
  const auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : static_cast<int32_t>(it - names.begin());
}

// The listed model of the lowest max_complexity covering `complexity` (ties: list order);
// none covers it: the one of the highest (first listed among equals).
size_t pick_tier(const std::vector<ModelTierSpec>& tiers, double complexity) {
  std::optional<size_t> best;
  size_t highest = 0;
  for (size_t t = 0; t < tiers.size(); ++t) {
    const double c = tiers[t].max_complexity;
    if (c > tiers[highest].max_complexity) highest = t;
    if (c >= complexity && (!best || c < tiers[*best].max_complexity)) best = t;
  }
  return best.value_or(highest);
}

}  // namespace

ModelAssignment assign_models(const Scenario& scenario, RequestTable& table) {
  ModelAssignment a;
  const size_t num_pools = scenario.pools.size();
  for (const PoolSpec& p : scenario.pools) {
    if (p.role != fleet::PoolRole::decode && index_of(a.models, p.model) < 0) {
      a.models.push_back(p.model);
    }
  }
  for (const PoolSpec& p : scenario.pools) a.model_of_pool.push_back(index_of(a.models, p.model));
  a.entry_pools.assign(a.models.size(), std::vector<char>(num_pools, 0));
  for (size_t p = 0; p < num_pools; ++p) {
    if (scenario.pools[p].role != fleet::PoolRole::decode) {
      a.entry_pools[static_cast<size_t>(a.model_of_pool[p])][p] = 1;
    }
  }

  std::vector<Request>& requests = table.requests;
  for (size_t i = 0; i < requests.size(); ++i) {
    const WorkloadSpec& w = scenario.workloads[static_cast<size_t>(table.workload[i])];
    if (w.model) requests[i].model = *w.model;
  }
  const bool any_named = std::any_of(requests.begin(), requests.end(),
                                     [](const Request& r) { return !r.model.empty(); });
  if (!scenario.model_router && !any_named) return a;

  const bool by_complexity = scenario.model_router && scenario.model_router->policy == "complexity";
  std::vector<std::optional<traces::Distribution>> draws(scenario.workloads.size());
  std::vector<traces::Rng> rngs;  // [num_workloads] one complexity stream per workload
  for (size_t w = 0; w < scenario.workloads.size(); ++w) {
    rngs.emplace_back(traces::derive_seed(scenario.seed ^ kComplexityStream, w));
    if (scenario.workloads[w].complexity) {
      traces::DistributionContext context;
      context.quantity = traces::Quantity::seconds;
      draws[w] = traces::Distribution::parse(
          *scenario.workloads[w].complexity,
          fmt::format("{}: workloads[{}].complexity", scenario.file, w), context);
    }
  }
  a.of_request.assign(requests.size(), -1);
  if (by_complexity) a.quality_kept.assign(requests.size(), 0);
  for (size_t i = 0; i < requests.size(); ++i) {
    Request& r = requests[i];
    const auto w = static_cast<size_t>(table.workload[i]);
    if (by_complexity) {
      const ModelRouterSpec& router = *scenario.model_router;
      if (!r.complexity) {
        if (!draws[w]) {
          throw InputError(fmt::format(
              "{}: workloads[{}]: request {} carries no complexity; give the workload a "
              "\"complexity\" distribution (model_router.policy is complexity)",
              scenario.file, w, r.id));
        }
        r.complexity = std::clamp(draws[w]->sample(rngs[w]), 0.0, 1.0);
      }
      size_t tier = pick_tier(router.models, *r.complexity);
      if (router.misroute_rate > 0.0) {
        traces::Rng rng(traces::derive_seed(scenario.seed ^ kMisrouteStream, i));
        if (rng.uniform01() < router.misroute_rate) {
          // An imperfect classifier: one of the other listed models, uniformly.
          const auto other =
              static_cast<size_t>(rng.uniform01() * static_cast<double>(router.models.size() - 1));
          const size_t pick = std::min(other, router.models.size() - 2);
          tier = pick < tier ? pick : pick + 1;
        }
      }
      r.model = router.models[tier].model;
      a.quality_kept[i] = router.models[tier].max_complexity >= *r.complexity ? 1 : 0;
    } else if (r.model.empty() && a.models.size() == 1) {
      r.model = a.models.front();
    }
    if (r.model.empty()) continue;
    const int32_t m = index_of(a.models, r.model);
    if (m < 0) {
      throw InputError(fmt::format(
          "{}: workloads[{}]: request {} asks for model \"{}\", which no pool serves (pools "
          "serve: {})",
          scenario.file, w, r.id, r.model, served_models_text(scenario.pools)));
    }
    a.of_request[i] = m;
  }
  return a;
}

}  // namespace tidal::sim
