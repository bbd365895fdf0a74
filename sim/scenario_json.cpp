// The resolved scenario as JSON: every key with the value the run used, for summary.json.
// The result is itself a valid scenario that reproduces the run.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "engine/sched/config_json.h"
#include "sim/scenario.h"
#include "sim/scenario_disagg.h"
#include "sim/scenario_fleet_keys.h"
#include "sim/scenario_lora.h"
#include "sim/scenario_lossy.h"
#include "sim/scenario_model_router.h"

namespace tidal::sim {
namespace {

using ojson = nlohmann::ordered_json;

ojson optional_number(const std::optional<double>& v) {
  return v ? ojson(*v) : ojson(nullptr);
}

ojson slo_json(const SloBounds& slo) {
  return ojson{{"ttft_s", optional_number(slo.ttft_s)},
               {"tpot_s", optional_number(slo.tpot_s)},
               {"e2e_s", optional_number(slo.e2e_s)}};
}

// `class_slo`: the bounds of the workload's class, which a workload without its own `slo` takes
// from another of the class; echoed for every workload of the class, so the echo loads again.
ojson workload_json(const WorkloadSpec& w, const SloBounds& class_slo) {
  ojson j;
  j["name"] = w.name;
  if (w.trace) {
    j["trace"] =
        ojson{{"path", w.trace->path},
              {"format", w.trace->format ? ojson(std::string(traces::format_name(*w.trace->format)))
                                         : ojson(nullptr)}};
  } else {
    j["generator"] = ojson::parse(w.generator->dump());
  }
  j["tenant"] = w.tenant ? ojson(*w.tenant) : ojson(nullptr);
  j["slo_class"] = w.slo_class;
  j["slo"] = slo_json(class_slo);
  j["time_scale"] = w.time_scale;
  j["rate_scale"] = w.rate_scale;
  j["length_scale"] = w.length_scale;
  j["start_s"] = w.start_s;
  j["region"] = w.region ? ojson(*w.region) : ojson(nullptr);
  if (w.region_mix.empty()) {
    j["region_mix"] = nullptr;
  } else {
    ojson mix = ojson::object();
    for (const auto& [name, weight] : w.region_mix) mix[name] = weight;
    j["region_mix"] = mix;
  }
  j["max_output_tokens"] = w.max_output_tokens ? ojson(*w.max_output_tokens) : ojson(nullptr);
  // Echoed only when given, so scenarios without model routing echo as before.
  if (w.model) j["model"] = *w.model;
  if (w.complexity) j["complexity"] = ojson::parse(w.complexity->dump());
  if (w.private_share) j["private_share"] = *w.private_share;
  if (w.adapters) {
    j["adapters"] = ojson{
        {"count", w.adapters->count}, {"zipf", w.adapters->zipf}, {"prefix", w.adapters->prefix}};
  }
  return j;
}

ojson pool_json(const PoolSpec& p) {
  ojson j;
  j["name"] = p.name;
  // As given, so the echo loads again: a catalog name, a config path, an inline object.
  j["model"] = ojson::parse(p.model_input.dump());
  j["gpu"] = ojson::parse(p.gpu_input.dump());
  if (p.engine) j["engine"] = engine_to_json(*p.engine);
  j["tp"] = p.deployment.tp;
  if (p.deployment.ep != 1) j["ep"] = p.deployment.ep;
  if (p.deployment.attention_dp != 1) j["attention_dp"] = p.deployment.attention_dp;
  if (!p.moe_input.is_null()) j["moe"] = ojson::parse(p.moe_input.dump());
  if (p.lossy) j["lossy"] = lossy_to_json(p);
  if (p.lora) j["lora"] = lora_to_json(p);
  if (p.deployment.pp != 1) {
    j["pp"] = p.deployment.pp;
    j["pp_link"] = ojson{{"kind", std::string(fleet::link_kind_name(p.pp_link_kind))},
                         {"gb_per_s_per_gpu", p.deployment.pp_link_gb_per_s},
                         {"latency_ms", p.deployment.pp_link_latency_s * 1e3}};
  }
  j["weight_dtype"] = std::string(perf::dtype_name(p.deployment.weight_dtype));
  j["kv_dtype"] = std::string(perf::dtype_name(p.deployment.kv_dtype));
  j["num_replicas"] = p.num_replicas;
  j["gpu_memory_utilization"] = p.deployment.gpu_memory_utilization;
  j["block_size"] = p.deployment.block_size;
  j["prefix_caching"] = p.prefix_caching;
  j["swap_space_gib"] = p.swap_space_gib;
  if (!p.kv_tiers.empty()) {
    ojson tiers = ojson::array();
    for (const KvTierSpec& t : p.kv_tiers) {
      ojson tier{{"kind", std::string(kv::tier_kind_name(t.config.kind))}};
      if (t.capacity_gib) tier["capacity_gib"] = *t.capacity_gib;
      tier["read_gb_per_s"] = t.read_gb_per_s;
      tier["write_gb_per_s"] = t.write_gb_per_s;
      tier["latency_ms"] = t.latency_ms;
      tiers.push_back(std::move(tier));
    }
    j["kv_tiers"] = std::move(tiers);
  }
  // The on-demand price, unless the pricing object gives it itself or the pool is owned.
  j["price_per_gpu_hour"] = p.owned || (p.fleet_keys.contains("pricing") &&
                                        p.fleet_keys["pricing"].contains("on_demand_per_gpu_hour"))
                                ? ojson(nullptr)
                                : ojson(fleet::to_dollars(p.pool_pricing.on_demand_per_gpu_hour));
  j["scheduler"] = ojson::parse(sched::to_json(p.scheduler).dump());
  j["perf"] = ojson{{"kind", p.perf.kind}};
  if (p.perf.kind == "profile") j["perf"]["profile"] = p.perf.resolved_profile;
  if (p.perf.kind == "kernel_db") j["perf"]["dir"] = p.perf.resolved_dir;
  if (!p.perf.gemm_dtype.empty()) j["perf"]["gemm_dtype"] = p.perf.gemm_dtype;
  if (!p.perf.moe_dtype.empty()) j["perf"]["moe_dtype"] = p.perf.moe_dtype;
  if (!p.perf.calibration.empty()) j["perf"]["calibration"] = p.perf.resolved_calibration;
  for (const auto& [key, value] : p.fleet_keys.items()) j[key] = ojson::parse(value.dump());
  if (!p.region.empty()) j["region"] = p.region;
  j["role"] = std::string(fleet::pool_role_name(p.role));
  j["speculative"] = speculative_to_json(p.speculative);
  return j;
}

// The site energy keys given, into `into` (absent ones stay out: null would not load again).
void site_energy_keys_json(const fleet::SiteEnergyKeys& keys, ojson& into) {
  if (keys.pue) into["pue"] = *keys.pue;
  if (keys.carbon_intensity_g_per_kwh) {
    into["carbon_intensity_g_per_kwh"] = *keys.carbon_intensity_g_per_kwh;
  }
  if (keys.electricity_price_per_kwh) {
    into["electricity_price_per_kwh"] = *keys.electricity_price_per_kwh;
  }
}

}  // namespace

ojson engine_to_json(const EngineSpec& e) {
  const perf::EngineDefaults& d = e.defaults;
  ojson j{{"name", e.name},
          {"version", e.version},
          {"async_scheduling", d.async_scheduling},
          {"step_overhead_base_s", d.step_overhead.base_s},
          {"step_overhead_per_seq_s", d.step_overhead.per_seq_s},
          {"frontend_per_request_s", d.frontend_per_request_s},
          {"detokenize_per_token_s", d.detokenize_per_token_s}};
  if (d.state_memory_ratio) j["state_memory_ratio"] = *d.state_memory_ratio;
  return j;
}

ojson engine_defaults_to_json(const EngineSpec& e) {
  const perf::EngineDefaults& d = e.defaults;
  ojson values{{"policy", d.policy},
               {"admission", d.admission},
               {"preemption", d.preemption},
               {"watermark", d.watermark},
               {"max_num_batched_tokens", d.max_num_batched_tokens},
               {"max_num_seqs", d.max_num_seqs},
               {"max_model_len", d.max_model_len},
               {"prefix_caching", d.prefix_caching}};
  if (d.block_size) values["block_size"] = *d.block_size;
  values["gpu_memory_utilization"] = d.gpu_memory_utilization;
  values["memory_fraction"] = std::string(perf::memory_fraction_name(d.memory_fraction));
  values["cuda_graph_max_batch"] = d.cuda_graph_max_batch;
  values["async_scheduling"] = d.async_scheduling;
  values["step_overhead_base_s"] = d.step_overhead.base_s;
  values["step_overhead_per_seq_s"] = d.step_overhead.per_seq_s;
  values["frontend_per_request_s"] = d.frontend_per_request_s;
  values["detokenize_per_token_s"] = d.detokenize_per_token_s;
  if (d.state_memory_ratio) values["state_memory_ratio"] = *d.state_memory_ratio;
  ojson defaults = ojson::object();
  for (auto& [key, value] : values.items()) {
    const auto source = d.sources.find(key);
    defaults[key] =
        ojson{{"value", value}, {"source", source == d.sources.end() ? "" : source->second}};
  }
  return ojson{{"name", e.name}, {"version", e.version}, {"defaults", defaults}};
}

ojson speculative_to_json(const SpeculativeSpec& s) {
  if (!s.enabled()) return nullptr;
  ojson j{{"method", s.method},
          {"num_speculative_tokens", s.num_speculative_tokens},
          {"acceptance_rate", s.acceptance_rate},
          {"draft_cost_ratio", s.draft_cost_ratio}};
  // With rates by context the flat rate is not an input (and may not be given with them).
  if (s.proposal_by_context.empty()) j["proposal_rate"] = s.proposal_rate;
  j["draft_seconds_per_seq"] = s.draft_seconds_per_seq;
  j["draft_seconds_per_context_token"] = s.draft_seconds_per_context_token;
  if (s.accepting_share < 1.0) j["accepting_share"] = s.accepting_share;
  if (!s.acceptance_by_class.empty()) {
    ojson by_class = ojson::object();
    for (const auto& [name, rate] : s.acceptance_by_class) by_class[name] = rate;
    j["acceptance_by_class"] = std::move(by_class);
  }
  if (!s.by_decode_step.empty()) {
    ojson buckets = ojson::array();
    for (const SpecStepRates& b : s.by_decode_step) {
      ojson bucket{{"first_step", b.first_step}};
      if (b.proposal_rate) bucket["proposal_rate"] = *b.proposal_rate;
      bucket["acceptance_rate"] = b.acceptance_rate;
      buckets.push_back(std::move(bucket));
    }
    j["by_decode_step"] = std::move(buckets);
  }
  if (!s.proposal_by_context.empty()) {
    ojson buckets = ojson::array();
    for (const SpecContextRate& b : s.proposal_by_context) {
      buckets.push_back(
          {{"first_context_tokens", b.first_context_tokens}, {"proposal_rate", b.proposal_rate}});
    }
    j["proposal_by_context"] = std::move(buckets);
  }
  return j;
}

nlohmann::ordered_json scenario_to_json(const Scenario& s) {
  ojson j;
  j["name"] = s.name;
  j["seed"] = s.seed;
  j["duration_s"] = optional_number(s.duration_s);
  j["timeline_interval_s"] = s.timeline_interval_s;
  ojson workloads = ojson::array();
  for (const WorkloadSpec& w : s.workloads) {
    const auto cls = std::find_if(s.slo_classes.begin(), s.slo_classes.end(),
                                  [&](const SloClass& c) { return c.name == w.slo_class; });
    workloads.push_back(workload_json(w, cls != s.slo_classes.end() ? cls->slo : w.slo));
  }
  j["workloads"] = workloads;
  ojson pools = ojson::array();
  for (const PoolSpec& p : s.pools) pools.push_back(pool_json(p));
  j["fleet"] = ojson{{"pools", pools}};
  ojson router{{"policy", s.router.policy}};
  if (router_reads_knob(s.router.policy, "load_factor")) {
    router["load_factor"] = s.router.load_factor;
  }
  if (router_reads_knob(s.router.policy, "prefix_blocks")) {
    router["prefix_blocks"] = s.router.prefix_blocks;
    router["virtual_nodes"] = s.router.virtual_nodes;
  }
  // Given only with offload tiers; left out at 0 so earlier echoes stay as they were.
  if (s.router.tier_hit_weight > 0.0) router["tier_hit_weight"] = s.router.tier_hit_weight;
  router["prefer_nearest_region"] = s.router.prefer_nearest_region;
  router["class_priority"] = s.router.class_priority;
  router["admission"] = admission_to_json(s.router.admission);
  j["router"] = router;
  j["metrics"] = ojson{{"long_prefill_tokens", s.metrics.long_prefill_tokens},
                       {"peak_bin_s", s.metrics.peak_bin_s},
                       {"warmup_s", s.metrics.warmup_s},
                       {"exclude_first_per_client", s.metrics.exclude_first_per_client}};
  if (s.network) {
    ojson regions = ojson::array();
    for (const fleet::RegionSpec& r : s.network->regions) {
      ojson region{{"name", r.name}, {"kind", std::string(fleet::region_kind_name(r.kind))}};
      site_energy_keys_json(r.energy, region);
      regions.push_back(std::move(region));
    }
    // Egress keys only where the scenario prices egress: outputs of scenarios without them stay
    // as they were.
    const bool with_egress = s.prices_egress();
    ojson links = ojson::array();
    for (const fleet::LinkSpec& l : s.network->links) {
      links.push_back(ojson{{"from", l.from}, {"to", l.to}, {"latency_ms", l.latency_ms}});
      if (with_egress) links.back()["egress_per_gb"] = l.egress_per_gb;
    }
    j["network"] = ojson{{"regions", regions}, {"links", links}};
    if (with_egress) {
      const fleet::WireBytes& wire = s.network->wire;
      j["network"]["request_bytes_per_token"] = wire.request_bytes_per_token;
      j["network"]["response_bytes_per_token"] = wire.response_bytes_per_token;
      j["network"]["response_bytes_per_chunk"] = wire.response_bytes_per_chunk;
    }
  } else {
    j["network"] = nullptr;
  }
  j["kv_transfer"] = kv_transfer_to_json(s, s.prices_egress());
  j["priorities"] = ojson(s.priorities);
  if (s.model_router) j["model_router"] = model_router_to_json(*s.model_router);
  if (s.report_energy) {
    // Only with energy on, so other scenarios keep their summary byte for byte.
    ojson energy = ojson::object();
    site_energy_keys_json(fleet::SiteEnergyKeys{s.energy.pue, s.energy.carbon_intensity_g_per_kwh,
                                                s.energy.electricity_price_per_kwh},
                          energy);
    j["energy"] = std::move(energy);
  }
  j["output"] = ojson{{"requests_csv", s.output.requests_csv},
                      {"timeline_csv", s.output.timeline_csv},
                      {"trace_json", s.output.trace_json},
                      {"trace_max_slices", s.output.trace_max_slices}};
  return j;
}

}  // namespace tidal::sim
