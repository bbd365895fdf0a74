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

namespace {

// `models` of a complexity, cascade or sensitive_local router; `keys` are the keys an entry
// may hold.
std::vector<ModelTierSpec> parse_model_list(JsonObject& obj, const std::vector<PoolSpec>& pools,
                                            std::initializer_list<std::string_view> keys,
                                            const std::string& expected) {
  const nlohmann::json* models = obj.child("models");
  if (models == nullptr || !models->is_array() || models->empty()) {
    obj.fail("models", fmt::format("the {} policy needs a non-empty array of {}",
                                   obj.string("policy", "fixed"), expected));
  }
  std::vector<ModelTierSpec> tiers;
  for (size_t i = 0; i < models->size(); ++i) {
    JsonObject m((*models)[i], fmt::format("model_router.models[{}]", i), obj.file());
    ModelTierSpec tier;
    tier.model = m.required_string("model");
    if (!fleet_serves_model(pools, tier.model)) {
      m.fail("model", fmt::format("\"{}\" is served by no pool (pools serve: {})", tier.model,
                                  served_models_text(pools)));
    }
    for (const ModelTierSpec& earlier : tiers) {
      if (earlier.model == tier.model) m.fail("model", "listed twice");
    }
    tier.max_complexity = m.number("max_complexity", 1.0);
    if (!(tier.max_complexity >= 0.0 && tier.max_complexity <= 1.0)) {
      m.fail("max_complexity", fmt::format("must be in [0, 1], got {}", tier.max_complexity));
    }
    m.finish(keys);
    tiers.push_back(tier);
  }
  return tiers;
}

double read_share(JsonObject& obj, std::string_view key) {
  const double share = obj.non_negative(key, obj.number(key, 0.0));
  if (share > 1.0) obj.fail(key, fmt::format("must be in [0, 1], got {}", share));
  return share;
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
  if (spec.policy == "fixed") {
    obj.finish({"policy"});
    return spec;
  }
  if (spec.policy == "sensitive_local") {
    if (obj.has("models")) {
      spec.models = parse_model_list(obj, pools, {"model"}, "{\"model\": name}");
    }
    obj.finish({"policy", "models"});
    return spec;
  }
  if (spec.policy != "complexity" && spec.policy != "cascade") {
    obj.fail("policy", fmt::format("unknown policy \"{}\" (known: fixed, complexity, cascade, "
                                   "sensitive_local)",
                                   spec.policy));
  }
  spec.misroute_rate = read_share(obj, "misroute_rate");
  spec.models = parse_model_list(obj, pools, {"model", "max_complexity"},
                                 "{\"model\": name, \"max_complexity\": number in [0, 1]}");
  if (spec.policy == "complexity") {
    if (spec.misroute_rate > 0.0 && spec.models.size() < 2) {
      obj.fail("misroute_rate", "needs two or more models to misroute between");
    }
    obj.finish({"policy", "misroute_rate", "models"});
    return spec;
  }
  if (spec.models.size() != 2) {
    obj.fail(
        "models",
        fmt::format("the cascade policy needs exactly two models, the small one first (got {})",
                    spec.models.size()));
  }
  if (obj.has("escalate") && !obj.child("escalate")->is_null()) {
    spec.escalate = read_share(obj, "escalate");
    if (spec.misroute_rate > 0.0) {
      obj.fail("misroute_rate",
               "an escalate share is already a random choice; misroute_rate applies to escalation "
               "by complexity (leave escalate out)");
    }
  }
  obj.finish({"policy", "misroute_rate", "escalate", "models"});
  return spec;
}

nlohmann::ordered_json model_router_to_json(const ModelRouterSpec& spec) {
  nlohmann::ordered_json j{{"policy", spec.policy}};
  if (spec.policy == "fixed") return j;
  nlohmann::ordered_json models = nlohmann::ordered_json::array();
  if (spec.policy == "sensitive_local") {
    for (const ModelTierSpec& t : spec.models) models.push_back({{"model", t.model}});
    j["models"] = models;
    return j;
  }
  j["misroute_rate"] = spec.misroute_rate;
  if (spec.policy == "cascade") {
    j["escalate"] = spec.escalate ? nlohmann::ordered_json(*spec.escalate) : nullptr;
  }
  for (const ModelTierSpec& t : spec.models) {
    models.push_back({{"model", t.model}, {"max_complexity", t.max_complexity}});
  }
  j["models"] = models;
  return j;
}

}  // namespace tidal::sim
