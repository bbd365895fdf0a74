// The resolved scenario as JSON: every key with the value the run used, for summary.json.
// The result is itself a valid scenario that reproduces the run.
#include <nlohmann/json.hpp>

#include "engine/sched/config_json.h"
#include "sim/scenario.h"

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

ojson workload_json(const WorkloadSpec& w) {
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
  j["slo"] = slo_json(w.slo);
  j["time_scale"] = w.time_scale;
  j["rate_scale"] = w.rate_scale;
  j["length_scale"] = w.length_scale;
  j["start_s"] = w.start_s;
  return j;
}

ojson pool_json(const PoolSpec& p) {
  ojson j;
  j["name"] = p.name;
  j["model"] = p.model;
  j["gpu"] = p.gpu;
  j["tp"] = p.deployment.tp;
  j["weight_dtype"] = std::string(perf::dtype_name(p.deployment.weight_dtype));
  j["kv_dtype"] = std::string(perf::dtype_name(p.deployment.kv_dtype));
  j["num_replicas"] = p.num_replicas;
  j["gpu_memory_utilization"] = p.deployment.gpu_memory_utilization;
  j["block_size"] = p.deployment.block_size;
  j["prefix_caching"] = p.prefix_caching;
  j["swap_space_gib"] = p.swap_space_gib;
  j["price_per_gpu_hour"] = p.resolved_price_per_gpu_hour;
  j["scheduler"] = ojson::parse(sched::to_json(p.scheduler).dump());
  j["perf"] = p.perf.kind == "profile" ? ojson{{"kind", p.perf.kind}, {"profile", p.perf.profile}}
                                       : ojson{{"kind", p.perf.kind}};
  return j;
}

}  // namespace

nlohmann::ordered_json scenario_to_json(const Scenario& s) {
  ojson j;
  j["name"] = s.name;
  j["seed"] = s.seed;
  j["duration_s"] = optional_number(s.duration_s);
  j["timeline_interval_s"] = s.timeline_interval_s;
  ojson workloads = ojson::array();
  for (const WorkloadSpec& w : s.workloads) workloads.push_back(workload_json(w));
  j["workloads"] = workloads;
  ojson pools = ojson::array();
  for (const PoolSpec& p : s.pools) pools.push_back(pool_json(p));
  j["fleet"] = ojson{{"pools", pools}};
  j["router"] = ojson{{"policy", s.router.policy}};
  j["output"] = ojson{{"requests_csv", s.output.requests_csv},
                      {"timeline_csv", s.output.timeline_csv},
                      {"trace_json", s.output.trace_json},
                      {"trace_max_slices", s.output.trace_max_slices}};
  return j;
}

}  // namespace tidal::sim
