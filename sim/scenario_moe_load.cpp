#include "sim/scenario_moe_load.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "perf/expert_load.h"

namespace tidal::sim {
namespace {

// `expert_load`: an array of num_experts finite loads >= 0, at least top_k of them > 0.
std::vector<double> read_loads(const nlohmann::json& value, const std::string& path,
                               const std::string& file, const perf::ModelSpec& model) {
  if (!value.is_array()) {
    throw_at(file, path,
             fmt::format("must be an array of {} loads, one per routed expert of {}",
                         model.num_experts, model.name));
  }
  if (static_cast<int64_t>(value.size()) != model.num_experts) {
    throw_at(file, path,
             fmt::format("has {} loads; {} has {} routed experts", value.size(), model.name,
                         model.num_experts));
  }
  std::vector<double> loads;  // [num_experts] as written
  loads.reserve(value.size());
  for (size_t i = 0; i < value.size(); ++i) {
    const nlohmann::json& load = value[i];
    if (!load.is_number() || !std::isfinite(load.get<double>()) || load.get<double>() < 0.0) {
      throw_at(file, fmt::format("{}[{}]", path, i),
               fmt::format("must be a finite number >= 0, got {}", load.dump()));
    }
    loads.push_back(load.get<double>());
  }
  // Each token picks top_k distinct experts, so at least that many must take load.
  const int64_t num_loaded =
      std::count_if(loads.begin(), loads.end(), [](double l) { return l > 0; });
  if (num_loaded < model.num_active_experts) {
    throw_at(
        file, path,
        fmt::format("{} experts have load > 0; {} routes each token to {}, so at least {} "
                    "must",
                    num_loaded, model.name, model.num_active_experts, model.num_active_experts));
  }
  return loads;
}

}  // namespace

void read_pool_moe(JsonObject& pool_obj, PoolSpec& pool) {
  const nlohmann::json* value = pool_obj.child("moe");
  if (value == nullptr || value->is_null()) return;
  const perf::ModelSpec& model = pool.model_spec;
  if (!model.is_moe()) {
    pool_obj.fail("moe", fmt::format("needs an MoE model; {} is dense", model.name));
  }
  if (pool.perf.kind == "profile") {
    pool_obj.fail("moe",
                  "not with \"perf\": {\"kind\": \"profile\"} (a profile's MoE times were "
                  "measured under its own routing)");
  }
  JsonObject obj(*value, pool_obj.path_of("moe"), pool_obj.file());
  const bool skew_given = obj.has("expert_skew");
  const bool load_given = obj.has("expert_load");
  if (skew_given == load_given) {
    throw_at(obj.file(), obj.path(), "give exactly one of expert_skew and expert_load");
  }
  if (skew_given) {
    const double skew = obj.number("expert_skew", 0.0);
    if (!std::isfinite(skew) || skew < 0.0) {
      obj.fail("expert_skew", fmt::format("must be a finite number >= 0, got {}", skew));
    }
    pool.deployment.expert_load =
        perf::zipf_expert_load(model.num_experts, model.num_active_experts, skew);
  } else {
    const std::vector<double> loads =
        read_loads(*obj.child("expert_load"), obj.path_of("expert_load"), obj.file(), model);
    pool.deployment.expert_load = perf::explicit_expert_load(loads, model.num_active_experts);
  }
  obj.finish({"expert_skew", "expert_load"});
  pool.moe_input = *value;
}

}  // namespace tidal::sim
