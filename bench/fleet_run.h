// The measured part of the fleet benches (fleet_day, fleet_week): parse a generated scenario,
// load its workloads, simulate and compute the metrics, timing it on this thread's CPU clock,
// and return the bench's JSON line (the caller adds the figures its fleet has and prints it).
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "bench/peak_rss.h"
#include "sim/metrics.h"
#include "sim/scenario.h"
#include "sim/simulator.h"
#include "sim/workload_loader.h"

namespace tidal::bench {

inline double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

// A generator's length distribution: lognormal of `median` and `sigma`, cut at `max` tokens.
inline nlohmann::json lognormal_lengths(int median, double sigma, int max) {
  return {{"dist", "lognormal"}, {"median", median}, {"sigma", sigma}, {"max", max}};
}

// A fleet bench's targets (issue 22): CPU seconds on one core and peak RSS in MiB.
struct FleetTargets {
  double cpu_s = 0.0;
  double rss_mb = 0.0;
};

struct FleetRun {
  nlohmann::ordered_json line;  // the bench's JSON line, the fleet's peak replicas not yet in it
  sim::RunMetrics metrics;
};

// The line states the bench's targets and whether the run met them.
// A scenario the arguments made impossible (e.g. a duration of 0) prints its message and exits 2.
// `step_by_step`: no repeated decode steps (sim::Scenario::step_by_step), to time what they save.
inline FleetRun run_fleet_bench(const std::string& name, const nlohmann::json& scenario_json,
                                FleetTargets targets, bool step_by_step = false) {
  std::optional<sim::Scenario> parsed;
  std::optional<sim::RequestTable> loaded;
  auto wall_start = std::chrono::steady_clock::now();
  double cpu_start = 0.0;
  try {
    parsed = sim::parse_scenario(scenario_json, name, "");
    wall_start = std::chrono::steady_clock::now();
    cpu_start = thread_cpu_seconds();
    loaded = sim::load_workloads(*parsed);
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s\n", e.what());  // names the bench's scenario
    std::exit(2);
  }
  parsed->step_by_step = step_by_step;
  const sim::Scenario& scenario = *parsed;
  sim::RequestTable table = std::move(*loaded);
  const double load_s = thread_cpu_seconds() - cpu_start;
  const double load_peak_rss_mb = peak_rss_mb();  // loading holds the requests twice, briefly
  sim::RunResult result = sim::simulate(scenario, std::move(table));
  sim::RunMetrics m = sim::compute_metrics(scenario, result);
  const double cpu_s = thread_cpu_seconds() - cpu_start;
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const double line_peak_rss_mb = peak_rss_mb();
  nlohmann::ordered_json line = {
      {"bench", name},
      {"step_by_step", step_by_step},
      {"simulated_s", m.duration_s},
      {"num_requests", m.num_requests},
      {"num_finished", m.num_finished},
      {"num_events", result.num_events},
      {"num_steps", result.num_steps},
      {"num_replicas_total", m.fleet.num_replicas_total},
      {"dollars", m.dollars},
      {"slo_attainment", m.slo_attainment},
      {"trace_cpu_s", load_s},
      {"wall_s", wall_s},
      {"cpu_s", cpu_s},
      {"simulated_requests_per_s", static_cast<double>(m.num_requests) / cpu_s},
      {"load_peak_rss_mb", load_peak_rss_mb},
      {"peak_rss_mb", line_peak_rss_mb},
      {"target_cpu_s", targets.cpu_s},
      {"target_rss_mb", targets.rss_mb},
      {"meets_target_cpu", cpu_s < targets.cpu_s},
      {"meets_target_rss", line_peak_rss_mb < targets.rss_mb}};
  return {std::move(line), std::move(m)};
}

}  // namespace tidal::bench
