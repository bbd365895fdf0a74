#include "sim/scenario_model_router.h"

#include <algorithm>

#include <fmt/format.h>

#include "traces/distribution.h"

namespace tidal::sim {

bool fleet_serves_model(const std::vector<PoolSpec>& pools, const std::string& model) {
  return std::any_of(pools.begin(), pools.end(), [&](const PoolSpec& p) {
    return p.role != fleet::PoolRole::decode && p.model == model;
  });
}

std::string served_models_text(const std::vector<PoolSpec>& pools) {
  std::vector<std::string> names;  // [num distinct served models]
  std::string text;
  for (const PoolSpec& p : pools) {
    if (p.role == fleet::PoolRole::decode) continue;
    if (std::find(names.begin(), names.end(), p.model) != names.end()) continue;
    if (!names.empty()) text += ", ";
    text += p.model;
    names.push_back(p.model);
  }
  return text;
}

namespace {

void check_workload_models(const std::vector<PoolSpec>& pools,
                           const std::vector<WorkloadSpec>& workloads, const std::string& file) {
  for (size_t i = 0; i < workloads.size(); ++i) {
    const WorkloadSpec& w = workloads[i];
    if (w.model && !fleet_serves_model(pools, *w.model)) {
      throw_at(file, fmt::format("workloads[{}].model", i),
               fmt::format("\"{}\" is served by no pool (pools serve: {})", *w.model,
                           served_models_text(pools)));
    }
    if (w.complexity) {
      traces::DistributionContext context;
      context.quantity = traces::Quantity::seconds;
      (void)traces::Distribution::parse(
          *w.complexity, fmt::format("{}: workloads[{}].complexity", file, i), context);
    }
  }
}

}  // namespace

std::optional<ModelRouterSpec> parse_model_router(JsonObject& root,
                                                  const std::vector<PoolSpec>& pools,
                                                  const std::vector<WorkloadSpec>& workloads) {
  check_workload_models(pools, workloads, root.file());
  const nlohmann::json* value = root.child("model_router");
  if (value == nullptr || value->is_null()) return std::nullopt;
  JsonObject obj(*value, "model_router", root.file());
  ModelRouterSpec spec;
  spec.policy = obj.string("policy", "fixed");
  if (spec.policy != "fixed" && spec.policy != "complexity") {
    obj.fail("policy",
             fmt::format("unknown policy \"{}\" (known: fixed, complexity)", spec.policy));
  }
  if (spec.policy == "fixed") {
    obj.finish({"policy"});
    return spec;
  }
  spec.misroute_rate = obj.non_negative("misroute_rate", obj.number("misroute_rate", 0.0));
  if (spec.misroute_rate > 1.0) {
    obj.fail("misroute_rate", fmt::format("must be in [0, 1], got {}", spec.misroute_rate));
  }
  const nlohmann::json* models = obj.child("models");
  if (models == nullptr || !models->is_array() || models->empty()) {
    obj.fail("models",
             "the complexity policy needs a non-empty array of "
             "{\"model\": name, \"max_complexity\": number in [0, 1]}");
  }
  for (size_t i = 0; i < models->size(); ++i) {
    JsonObject m((*models)[i], fmt::format("model_router.models[{}]", i), root.file());
    ModelTierSpec tier;
    tier.model = m.required_string("model");
    if (!fleet_serves_model(pools, tier.model)) {
      m.fail("model", fmt::format("\"{}\" is served by no pool (pools serve: {})", tier.model,
                                  served_models_text(pools)));
    }
    for (const ModelTierSpec& earlier : spec.models) {
      if (earlier.model == tier.model) m.fail("model", "listed twice");
    }
    tier.max_complexity = m.number("max_complexity", 1.0);
    if (!(tier.max_complexity >= 0.0 && tier.max_complexity <= 1.0)) {
      m.fail("max_complexity", fmt::format("must be in [0, 1], got {}", tier.max_complexity));
    }
    m.finish({"model", "max_complexity"});
    spec.models.push_back(tier);
  }
  if (spec.misroute_rate > 0.0 && spec.models.size() < 2) {
    obj.fail("misroute_rate", "needs two or more models to misroute between");
  }
  obj.finish({"policy", "misroute_rate", "models"});
  return spec;
}

nlohmann::ordered_json model_router_to_json(const ModelRouterSpec& spec) {
  nlohmann::ordered_json j{{"policy", spec.policy}};
  if (spec.policy == "fixed") return j;
  j["misroute_rate"] = spec.misroute_rate;
  nlohmann::ordered_json models = nlohmann::ordered_json::array();
  for (const ModelTierSpec& t : spec.models) {
    models.push_back({{"model", t.model}, {"max_complexity", t.max_complexity}});
  }
  j["models"] = models;
  return j;
}

}  // namespace tidal::sim
