#include "sim/scenario_fleet_keys.h"

#include <fmt/format.h>

#include "sim/fleet/spec_reading.h"
#include "sim/router_admission_spec.h"

namespace tidal::sim {

void read_workload_fleet_keys(JsonObject& obj, WorkloadSpec& w) {
  w.region = obj.optional_string("region");
  if (w.region && w.region->empty()) obj.fail("region", "must not be empty");
  if (const nlohmann::json* mix = obj.child("region_mix"); mix != nullptr && !mix->is_null()) {
    if (w.region) obj.fail("region_mix", "give either region or region_mix");
    if (!mix->is_object() || mix->empty()) {
      obj.fail("region_mix", "expected a non-empty object {\"region\": weight}");
    }
    JsonObject mix_obj(*mix, obj.path_of("region_mix"), obj.file());
    std::vector<std::string_view> names;
    for (auto it = mix->begin(); it != mix->end(); ++it) {
      const double weight = mix_obj.positive(it.key(), mix_obj.number(it.key(), 0.0));
      w.region_mix.emplace_back(it.key(), weight);
    }
    for (const auto& [name, weight] : w.region_mix) names.push_back(name);
    mix_obj.finish(names);
  }
  w.model = obj.optional_string("model");
  if (w.model && w.model->empty()) obj.fail("model", "must not be empty");
  if (const nlohmann::json* c = obj.child("complexity"); c != nullptr && !c->is_null()) {
    w.complexity = *c;
  }
  if (obj.has("private_share") && !obj.child("private_share")->is_null()) {
    const double share = obj.number("private_share", 0.0);
    if (!(share >= 0.0 && share <= 1.0)) {
      obj.fail("private_share", fmt::format("must be in [0, 1], got {}", share));
    }
    w.private_share = share;
  }
  if (const nlohmann::json* a = obj.child("adapters"); a != nullptr && !a->is_null()) {
    JsonObject adapters(*a, obj.path_of("adapters"), obj.file());
    WorkloadAdapters spec;
    spec.count = adapters.at_least("count", adapters.integer("count", spec.count), 1);
    if (spec.count > 1'000'000) {
      adapters.fail("count", fmt::format("must be at most 1000000, got {}", spec.count));
    }
    spec.zipf = adapters.non_negative("zipf", adapters.number("zipf", spec.zipf));
    if (spec.zipf > 10.0)
      adapters.fail("zipf", fmt::format("must be at most 10, got {:g}", spec.zipf));
    spec.prefix = adapters.string("prefix", spec.prefix);
    if (spec.prefix.empty()) adapters.fail("prefix", "must not be empty");
    adapters.finish({"count", "zipf", "prefix"});
    w.adapters = spec;
  }
  if (obj.has("max_output_tokens") && !obj.child("max_output_tokens")->is_null()) {
    w.max_output_tokens = obj.at_least("max_output_tokens", obj.integer("max_output_tokens", 1), 1);
  }
}

bool router_reads_knob(std::string_view policy, std::string_view key) {
  if (key == "load_factor") {
    return policy == "session_affinity" || policy == "prefix_aware" || policy == "cache_aware" ||
           policy == "lora_affinity";
  }
  if (key == "prefix_blocks" || key == "virtual_nodes") return policy == "prefix_aware";
  if (key == "tier_hit_weight") return policy == "cache_aware";
  return true;
}

void read_router_knobs(JsonObject& obj, RouterSpec& router) {
  router.load_factor = obj.number("load_factor", router.load_factor);
  if (!(router.load_factor >= 1.0)) {
    obj.fail("load_factor", fmt::format("must be >= 1, got {}", router.load_factor));
  }
  router.prefix_blocks =
      static_cast<int32_t>(obj.at_least("prefix_blocks", obj.integer("prefix_blocks", 4), 1));
  router.virtual_nodes = static_cast<int32_t>(
      obj.at_least("virtual_nodes", obj.integer("virtual_nodes", router.virtual_nodes), 1));
  if (router.virtual_nodes > 4096) obj.fail("virtual_nodes", "must be <= 4096");
  router.tier_hit_weight = obj.number("tier_hit_weight", router.tier_hit_weight);
  if (!(router.tier_hit_weight >= 0.0 && router.tier_hit_weight <= 1.0)) {
    obj.fail("tier_hit_weight", fmt::format("must be in [0, 1], got {}", router.tier_hit_weight));
  }
  router.prefer_nearest_region = obj.boolean("prefer_nearest_region", router.prefer_nearest_region);
  if (const nlohmann::json* v = obj.child("class_priority"); v != nullptr && !v->is_null()) {
    if (!v->is_array()) obj.fail("class_priority", "expected an array of slo_class names");
    for (const nlohmann::json& name : *v) {
      if (!name.is_string() || name.get<std::string>().empty()) {
        obj.fail("class_priority", "expected an array of non-empty strings");
      }
      router.class_priority.push_back(name.get<std::string>());
    }
  }
  router.admission = parse_admission_spec(obj);
}

MetricsSpec parse_metrics_spec(JsonObject& root) {
  MetricsSpec spec;
  const nlohmann::json* value = root.child("metrics");
  if (value == nullptr || value->is_null()) return spec;
  JsonObject obj(*value, "metrics", root.file());
  spec.long_prefill_tokens = obj.at_least(
      "long_prefill_tokens", obj.integer("long_prefill_tokens", spec.long_prefill_tokens), 1);
  spec.peak_bin_s = obj.positive("peak_bin_s", obj.number("peak_bin_s", spec.peak_bin_s));
  if (spec.peak_bin_s < fleet::kMinIntervalS || spec.peak_bin_s > fleet::kMaxDurationS) {
    obj.fail("peak_bin_s",
             fmt::format("must be between {:g} and {:g} s, got {:g}", fleet::kMinIntervalS,
                         fleet::kMaxDurationS, spec.peak_bin_s));
  }
  spec.warmup_s = obj.non_negative("warmup_s", obj.number("warmup_s", spec.warmup_s));
  if (spec.warmup_s > 1e9)
    obj.fail("warmup_s", fmt::format("must be <= 1e9, got {}", spec.warmup_s));
  spec.exclude_first_per_client =
      obj.boolean("exclude_first_per_client", spec.exclude_first_per_client);
  obj.finish({"long_prefill_tokens", "peak_bin_s", "warmup_s", "exclude_first_per_client"});
  return spec;
}

std::optional<fleet::NetworkSpec> parse_network(JsonObject& root,
                                                const std::vector<PoolSpec>& pools,
                                                const std::vector<WorkloadSpec>& workloads) {
  const std::string& file = root.file();
  const nlohmann::json* value = root.child("network");
  if (value == nullptr || value->is_null()) {
    for (size_t p = 0; p < pools.size(); ++p) {
      if (!pools[p].region.empty()) {
        throw_at(file, fmt::format("fleet.pools[{}].region", p), "needs a scenario \"network\"");
      }
    }
    for (size_t w = 0; w < workloads.size(); ++w) {
      if (workloads[w].region || !workloads[w].region_mix.empty()) {
        throw_at(file, fmt::format("workloads[{}]", w), "region needs a scenario \"network\"");
      }
    }
    return std::nullopt;
  }
  fleet::NetworkSpec spec = fleet::parse_network_spec(*value, file, "network");
  const fleet::NetworkGraph graph(spec);
  std::vector<int32_t> sites;
  for (size_t p = 0; p < pools.size(); ++p) {
    const std::string path = fmt::format("fleet.pools[{}].region", p);
    if (pools[p].region.empty()) throw_at(file, path, "missing (required with a network)");
    sites.push_back(graph.require_region(pools[p].region, false, file, path));
  }
  for (size_t w = 0; w < workloads.size(); ++w) {
    if (workloads[w].region) {
      graph.require_region(*workloads[w].region, true, file,
                           fmt::format("workloads[{}].region", w));
    }
    for (const auto& [name, weight] : workloads[w].region_mix) {
      graph.require_region(name, true, file, fmt::format("workloads[{}].region_mix.{}", w, name));
    }
  }
  graph.require_clients_served(sites, file, "network");
  return spec;
}

void parse_energy(JsonObject& root, Scenario& scenario) {
  const std::string& file = root.file();
  if (const nlohmann::json* value = root.child("energy"); value != nullptr && !value->is_null()) {
    perf::JsonObjectReader reader(*value, file, "energy");
    scenario.energy = fleet::read_site_energy_keys(reader).over(fleet::SiteEnergy{});
    reader.finish();
    scenario.report_energy = true;
  }
  // An owned pool pays its electricity, so its energy is always counted.
  for (const PoolSpec& pool : scenario.pools) {
    scenario.report_energy =
        scenario.report_energy || pool.fleet_keys.contains("energy") || pool.owned.has_value();
  }
  if (scenario.network) {
    for (const fleet::RegionSpec& region : scenario.network->regions) {
      scenario.report_energy = scenario.report_energy || region.energy.any();
    }
  }
  if (!scenario.report_energy) return;
  for (size_t p = 0; p < scenario.pools.size(); ++p) {
    PoolSpec& pool = scenario.pools[p];
    fleet::SiteEnergy site = scenario.energy;
    if (scenario.network) {
      for (const fleet::RegionSpec& region : scenario.network->regions) {
        if (region.name == pool.region) site = region.energy.over(scenario.energy);
      }
    }
    pool.power = fleet::resolve_pool_power(pool.energy, pool.gpu_spec, pool.deployment.num_gpus(),
                                           site, file, fmt::format("fleet.pools[{}]", p));
    if (pool.owned && !pool.power.site.electricity_price_per_kwh) {
      throw_at(file, fmt::format("fleet.pools[{}].owned", p),
               "an owned pool pays for its electricity: give electricity_price_per_kwh in the "
               "scenario's energy object or in the pool's region");
    }
  }
}

}  // namespace tidal::sim
