// Helpers shared by the fleet suites: run a scenario from examples/fleet and compute metrics.
#pragma once

#include <string>

#include "sim/metrics.h"
#include "sim/scenario.h"
#include "sim/simulator.h"

namespace tidal::sim::testing {

struct FleetRun {
  Scenario scenario;
  RunResult result;
  RunMetrics metrics;
};

inline FleetRun run_fleet_scenario(Scenario scenario) {
  FleetRun run{std::move(scenario), {}, {}};
  run.result = run_scenario(run.scenario);
  run.metrics = compute_metrics(run.scenario, run.result);
  return run;
}

// examples/fleet/<name>
inline FleetRun run_fleet_example(const std::string& name) {
  return run_fleet_scenario(
      load_scenario_file(std::string(TIDAL_SOURCE_DIR) + "/examples/fleet/" + name));
}

}  // namespace tidal::sim::testing
