#include "sim/model_assignment.h"

#include <algorithm>
#include <optional>
#include <span>
#include <utility>

#include <fmt/format.h>

#include "base/input_error.h"
#include "sim/scenario_model_router.h"
#include "traces/distribution.h"
#include "traces/random.h"

namespace tidal::sim {
namespace {

constexpr uint64_t kComplexityStream = 0xc0de'0000'0000'0000ULL;  // complexity draws
constexpr uint64_t kMisrouteStream = 0x3150'0000'0000'0000ULL;    // classifier errors
constexpr uint64_t kPrivateStream = 0x9717'0000'0000'0000ULL;     // private_share draws
constexpr uint64_t kEscalateStream = 0xe5ca'0000'0000'0000ULL;    // cascade escalate share

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

// Whether a pool is in an `edge` region of the scenario's network, so it may serve private
// requests.
bool is_local(const Scenario& scenario, const PoolSpec& pool) {
  if (!scenario.network) return false;
  for (const fleet::RegionSpec& region : scenario.network->regions) {
    if (region.name == pool.region) return region.kind == fleet::RegionKind::edge;
  }
  return false;
}

bool any_pool(std::span<const char> pools) {
  return std::find(pools.begin(), pools.end(), 1) != pools.end();
}

bool serves_locally(const ModelAssignment& a, int32_t model) {
  return model >= 0 && any_pool(a.local_entry_pools[static_cast<size_t>(model)]);
}

// The seeded complexity draws of each workload with a `complexity` distribution.
class ComplexityDraws {
 public:
  explicit ComplexityDraws(const Scenario& scenario) : draws_(scenario.workloads.size()) {
    for (size_t w = 0; w < scenario.workloads.size(); ++w) {
      rngs_.emplace_back(traces::derive_seed(scenario.seed ^ kComplexityStream, w));
      if (scenario.workloads[w].complexity) {
        traces::DistributionContext context;
        context.quantity = traces::Quantity::seconds;
        draws_[w] = traces::Distribution::parse(
            *scenario.workloads[w].complexity,
            fmt::format("{}: workloads[{}].complexity", scenario.file, w), context);
      }
    }
  }
  // Gives `r` a complexity from its workload's distribution where the trace gave none; false
  // when neither has one.
  bool fill(Request& r, size_t workload) {
    if (r.complexity) return true;
    if (!draws_[workload]) return false;
    r.complexity = std::clamp(draws_[workload]->sample(rngs_[workload]), 0.0, 1.0);
    return true;
  }

 private:
  std::vector<std::optional<traces::Distribution>> draws_;  // [num_workloads]
  std::vector<traces::Rng> rngs_;  // [num_workloads] one complexity stream per workload
};

}  // namespace

std::span<const char> ModelAssignment::pools_for(int64_t request) const {
  const int32_t model = of_request[static_cast<size_t>(request)];
  if (is_private_request(request)) {
    return local_entry_pools[model < 0 ? models.size() : static_cast<size_t>(model)];
  }
  if (model < 0) return {};
  return entry_pools[static_cast<size_t>(model)];
}

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
  a.local_entry_pools.assign(a.models.size() + 1, std::vector<char>(num_pools, 0));
  for (size_t p = 0; p < num_pools; ++p) {
    if (scenario.pools[p].role == fleet::PoolRole::decode) continue;
    const auto m = static_cast<size_t>(a.model_of_pool[p]);
    a.entry_pools[m][p] = 1;
    if (is_local(scenario, scenario.pools[p])) {
      a.local_entry_pools[m][p] = 1;
      a.local_entry_pools[a.models.size()][p] = 1;
    }
  }

  std::vector<Request>& requests = table.requests;
  for (size_t i = 0; i < requests.size(); ++i) {
    const WorkloadSpec& w = scenario.workloads[static_cast<size_t>(table.workload[i])];
    if (w.model) requests[i].model = *w.model;
    if (w.private_share) {
      traces::Rng rng(traces::derive_seed(scenario.seed ^ kPrivateStream, i));
      requests[i].is_private = rng.uniform01() < *w.private_share;
    }
  }
  const bool any_named = std::any_of(requests.begin(), requests.end(),
                                     [](const Request& r) { return !r.model.empty(); });
  const bool any_private =
      std::any_of(requests.begin(), requests.end(), [](const Request& r) { return r.is_private; });
  if (!scenario.model_router && !any_named && !any_private) return a;

  const std::string policy = scenario.model_router ? scenario.model_router->policy : "fixed";
  const std::vector<ModelTierSpec> no_tiers;
  const std::vector<ModelTierSpec>& tiers =
      scenario.model_router ? scenario.model_router->models : no_tiers;
  const double misroute_rate = scenario.model_router ? scenario.model_router->misroute_rate : 0.0;
  ComplexityDraws draws(scenario);
  a.of_request.assign(requests.size(), -1);
  if (any_private) {
    a.is_private.resize(requests.size());
    for (size_t i = 0; i < requests.size(); ++i) a.is_private[i] = requests[i].is_private;
  }
  if (policy == "complexity") a.quality_kept.assign(requests.size(), 0);
  if (policy == "cascade") {
    a.escalate_to.assign(requests.size(), -1);
    a.escalated.assign(requests.size(), 0);
  }
  // Tiers whose model a local pool serves, for private requests under complexity.
  std::vector<ModelTierSpec> local_tiers;
  for (const ModelTierSpec& t : tiers) {
    if (serves_locally(a, index_of(a.models, t.model))) local_tiers.push_back(t);
  }
  // cascade: whether the answer's model is declared fit, known only if every request has a
  // complexity.
  std::vector<char> cascade_kept;  // [num_requests] under cascade
  bool every_complexity = true;
  for (size_t i = 0; i < requests.size(); ++i) {
    Request& r = requests[i];
    const auto w = static_cast<size_t>(table.workload[i]);
    const std::string where = fmt::format("{}: workloads[{}]: request {}", scenario.file, w, r.id);
    if (policy == "complexity") {
      if (!draws.fill(r, w)) {
        throw InputError(
            fmt::format("{} carries no complexity; give the workload a \"complexity\" distribution "
                        "(model_router.policy is complexity)",
                        where));
      }
      const std::vector<ModelTierSpec>& choices = r.is_private ? local_tiers : tiers;
      if (choices.empty()) {
        throw InputError(fmt::format(
            "{} is private, and none of model_router.models is served by a pool in an edge "
            "region",
            where));
      }
      size_t tier = pick_tier(choices, *r.complexity);
      if (misroute_rate > 0.0 && choices.size() > 1) {
        traces::Rng rng(traces::derive_seed(scenario.seed ^ kMisrouteStream, i));
        if (rng.uniform01() < misroute_rate) {
          // An imperfect classifier: one of the other models, uniformly.
          const auto other =
              static_cast<size_t>(rng.uniform01() * static_cast<double>(choices.size() - 1));
          const size_t pick = std::min(other, choices.size() - 2);
          tier = pick < tier ? pick : pick + 1;
        }
      }
      r.model = choices[tier].model;
      a.quality_kept[i] = choices[tier].max_complexity >= *r.complexity ? 1 : 0;
    } else if (policy == "cascade") {
      const ModelRouterSpec& router = *scenario.model_router;
      const bool has_complexity = draws.fill(r, w);
      every_complexity = every_complexity && has_complexity;
      bool escalate = false;
      if (router.escalate) {
        traces::Rng rng(traces::derive_seed(scenario.seed ^ kEscalateStream, i));
        escalate = rng.uniform01() < *router.escalate;
      } else {
        if (!has_complexity) {
          throw InputError(fmt::format(
              "{} carries no complexity; give the workload a \"complexity\" distribution, or "
              "model_router an \"escalate\" share (model_router.policy is cascade)",
              where));
        }
        escalate = *r.complexity > router.models[0].max_complexity;
        if (misroute_rate > 0.0) {
          traces::Rng rng(traces::derive_seed(scenario.seed ^ kMisrouteStream, i));
          if (rng.uniform01() < misroute_rate) escalate = !escalate;
        }
      }
      r.model = router.models[0].model;
      const int32_t large = index_of(a.models, router.models[1].model);
      // A private request escalates only to a model a local pool serves.
      if (escalate && (!r.is_private || serves_locally(a, large))) a.escalate_to[i] = large;
      if (has_complexity) {
        const ModelTierSpec& answer = router.models[a.escalate_to[i] >= 0 ? 1 : 0];
        cascade_kept.push_back(answer.max_complexity >= *r.complexity ? 1 : 0);
      }
    } else if (r.is_private && policy == "sensitive_local" &&
               !serves_locally(a, r.model.empty() ? -1 : index_of(a.models, r.model))) {
      // The first preferred model served locally, else the first in pool order.
      std::string fallback;
      for (const ModelTierSpec& t : tiers) {
        if (fallback.empty() && serves_locally(a, index_of(a.models, t.model))) fallback = t.model;
      }
      for (size_t m = 0; m < a.models.size() && fallback.empty(); ++m) {
        if (serves_locally(a, static_cast<int32_t>(m))) fallback = a.models[m];
      }
      if (fallback.empty()) {
        throw InputError(
            fmt::format("{} is private, and no pool is in an edge region to serve it", where));
      }
      r.model = fallback;
    } else if (r.model.empty() && a.models.size() == 1) {
      r.model = a.models.front();
    }
    if (!r.model.empty()) {
      const int32_t m = index_of(a.models, r.model);
      if (m < 0) {
        throw InputError(
            fmt::format("{} asks for model \"{}\", which no pool serves (pools serve: {})", where,
                        r.model, served_models_text(scenario.pools)));
      }
      a.of_request[i] = m;
    }
    if (r.is_private && !any_pool(a.pools_for(static_cast<int64_t>(i)))) {
      throw InputError(fmt::format(
          "{} is private, and no pool in an edge region serves {} (private requests stay in "
          "edge regions; model_router.policy sensitive_local sends them to a local model "
          "instead)",
          where, r.model.empty() ? std::string("any model") : "model \"" + r.model.str() + "\""));
    }
  }
  if (policy == "cascade" && every_complexity) a.quality_kept = std::move(cascade_kept);
  return a;
}

}  // namespace tidal::sim
