// The predicted side of a validation: the simulator driven exactly like the engine — one
// replica, the engine's own scheduler config and KV block pool (block count from the engine's
// memory report), the same prepared requests at the same arrival times — with a profiled
// step-time model. The Scenario is built in code; nothing of the simulator is re-implemented.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/kv/block_manager.h"
#include "engine/sched/config.h"
#include "perf/memory_plan.h"
#include "perf/step_time_model.h"
#include "sim/metrics.h"
#include "sim/scenario.h"
#include "sim/simulator.h"
#include "sim/workload_loader.h"
#include "traces/request.h"

namespace tidal::validate {

struct SimInputs {
  std::string name;          // scenario name
  std::string trace_path;    // echoed as the workload's trace
  std::string model_name;    // echoed as the pool's model
  std::string device_name;   // echoed as the pool's GPU
  std::string profile_path;  // echoed as the pool's perf profile
  perf::Deployment deployment;
  sched::SchedulerConfig scheduler;
  kv::BlockManagerConfig kv;
  perf::MemoryPlan memory;  // the engine's figures, echoed
  std::shared_ptr<const perf::StepTimeModel> step_model;
  sim::SpeculativeSpec speculative;  // none, or the engine's n-gram drafting, calibrated
  double timeline_interval_s = 1.0;
};

sim::Scenario make_scenario(const SimInputs& inputs);

// The simulator's request table of already prepared (scaled, sorted) requests: ids and deps
// renumbered to positions, arrivals in nanoseconds, one workload, one SLO class.
sim::RequestTable make_request_table(const std::vector<Request>& requests);

struct SimRun {
  sim::Scenario scenario;
  sim::RunResult result;
  sim::RunMetrics metrics;
};

// Simulates; writes the run folder to `out_dir` unless it is empty.
SimRun run_simulation(const SimInputs& inputs, const std::vector<Request>& requests,
                      const std::string& out_dir);

}  // namespace tidal::validate
