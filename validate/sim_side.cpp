#include "validate/sim_side.h"

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "base/input_error.h"
#include "sim/run_output.h"

namespace tidal::validate {

sim::Scenario make_scenario(const SimInputs& inputs) {
  sim::Scenario scenario;
  scenario.file = "<tidal validate>";
  scenario.name = inputs.name;
  scenario.timeline_interval_s = inputs.timeline_interval_s;

  sim::WorkloadSpec workload;
  workload.name = "trace";
  workload.trace = sim::TraceSource{inputs.trace_path, inputs.trace_path, std::nullopt};
  scenario.workloads.push_back(workload);
  scenario.slo_classes.push_back(sim::SloClass{workload.slo_class, {}});

  sim::PoolSpec pool;
  pool.name = "engine";
  pool.model = inputs.model_name;
  pool.gpu = inputs.device_name;
  pool.deployment = inputs.deployment;
  pool.num_replicas = 1;
  pool.prefix_caching = inputs.kv.enable_prefix_caching;
  pool.scheduler = inputs.scheduler;
  pool.perf.kind = "profile";
  pool.perf.profile = inputs.profile_path;
  pool.perf.resolved_profile = inputs.profile_path;
  pool.price_per_gpu_hour = 0.0;
  pool.resolved_price_per_gpu_hour = 0.0;
  pool.memory = inputs.memory;
  pool.kv = inputs.kv;
  pool.step_model = inputs.step_model;
  pool.speculative = inputs.speculative;
  scenario.pools.push_back(pool);
  return scenario;
}

sim::RequestTable make_request_table(const std::vector<Request>& requests) {
  sim::RequestTable table;
  std::map<int64_t, int64_t> index_of;  // original id -> position
  for (size_t i = 0; i < requests.size(); ++i) {
    index_of.emplace(requests[i].id, static_cast<int64_t>(i));
  }
  for (size_t i = 0; i < requests.size(); ++i) {
    Request r = requests[i];
    r.id = static_cast<int64_t>(i);
    for (int64_t& dep : r.deps) {
      const auto it = index_of.find(dep);
      if (it == index_of.end()) {
        throw InputError(
            fmt::format("trace: request {} depends on request {}, which the trace "
                        "does not hold",
                        requests[i].id, dep));
      }
      dep = it->second;
    }
    table.arrival_ns.push_back(std::llround(r.arrival_s * 1e9));
    table.requests.push_back(std::move(r));
    table.workload.push_back(0);
    table.slo_class.push_back(0);
  }
  table.num_source_requests.push_back(static_cast<int64_t>(requests.size()));
  return table;
}

SimRun run_simulation(const SimInputs& inputs, const std::vector<Request>& requests,
                      const std::string& out_dir) {
  SimRun run;
  run.scenario = make_scenario(inputs);
  run.result = sim::simulate(run.scenario, make_request_table(requests));
  run.metrics = sim::compute_metrics(run.scenario, run.result);
  if (!out_dir.empty()) sim::write_run_output(out_dir, run.scenario, run.result, run.metrics);
  return run;
}

}  // namespace tidal::validate
