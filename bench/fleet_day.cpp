// Simulates one day of traffic on an autoscaled fleet and prints how fast the simulator runs
// and how much memory it needs, as one JSON line. Traffic: a diurnal curve (8 to 40 req/s,
// peak at 14:00) plus on/off bursts (3 req/s on average, 10x while on), over 86,400 s: about
// 2.2 million requests. Fleet: Llama-3-8B on H100, target-concurrency autoscaling between 2
// and 64 replicas with snapshot cold starts. Targets: under 60 s on one core, under 2 GB.
// Usage: fleet_day [duration_s=86400]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include <nlohmann/json.hpp>

#include "sim/metrics.h"
#include "sim/scenario.h"
#include "sim/simulator.h"
#include "sim/workload_loader.h"

namespace {

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

nlohmann::json lengths(int median, double sigma, int max) {
  return {{"dist", "lognormal"}, {"median", median}, {"sigma", sigma}, {"max", max}};
}

nlohmann::json day_scenario(double duration_s) {
  const nlohmann::json diurnal = {{"name", "diurnal"},
                                  {"slo_class", "interactive"},
                                  {"slo", {{"ttft_s", 2.0}}},
                                  {"generator",
                                   {{"kind", "diurnal"},
                                    {"peak_rate", 40},
                                    {"trough_rate", 8},
                                    {"duration_s", duration_s},
                                    {"prompt", lengths(512, 0.9, 4000)},
                                    {"output", lengths(128, 0.8, 1000)}}}};
  const nlohmann::json bursts = {{"name", "bursts"},
                                 {"slo_class", "batch"},
                                 {"generator",
                                  {{"kind", "bursty"},
                                   {"rate", 3},
                                   {"peak_to_mean", 10},
                                   {"mean_burst_s", 120},
                                   {"duration_s", duration_s},
                                   {"prompt", lengths(1024, 0.8, 6000)},
                                   {"output", lengths(200, 0.8, 1000)}}}};
  const nlohmann::json pool = {
      {"model", "llama-3-8b"},
      {"gpu", "H100-SXM"},
      {"num_replicas", 8},
      {"autoscaler",
       {{"policy", "target_concurrency"},
        {"target_inputs", 48},
        {"min_replicas", 2},
        {"max_replicas", 64},
        {"evaluation_interval_s", 30},
        {"scale_down_window_s", 600}}},
      {"cold_start", {{"provisioning_s", 30}, {"snapshot", {{"enabled", true}}}}}};
  return {{"name", "fleet_day"},
          {"seed", 1},
          {"timeline_interval_s", 60},
          {"workloads", {diurnal, bursts}},
          {"fleet", {{"pools", {pool}}}}};
}

}  // namespace

int main(int argc, char** argv) {
  const double duration_s = argc > 1 ? std::atof(argv[1]) : 86400.0;
  const tidal::sim::Scenario scenario =
      tidal::sim::parse_scenario(day_scenario(duration_s), "fleet_day", "");
  const auto wall_start = std::chrono::steady_clock::now();
  const double cpu_start = thread_cpu_seconds();
  tidal::sim::RequestTable table = tidal::sim::load_workloads(scenario);
  const double load_s = thread_cpu_seconds() - cpu_start;
  tidal::sim::RunResult result = tidal::sim::simulate(scenario, std::move(table));
  const tidal::sim::RunMetrics m = tidal::sim::compute_metrics(scenario, result);
  const double cpu_s = thread_cpu_seconds() - cpu_start;
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const nlohmann::ordered_json line = {
      {"bench", "fleet_day"},
      {"simulated_s", m.duration_s},
      {"num_requests", m.num_requests},
      {"num_finished", m.num_finished},
      {"num_events", result.num_events},
      {"num_steps", result.num_steps},
      {"peak_replicas", m.fleet.peak_replicas.at(0)},
      {"num_replicas_total", m.fleet.num_replicas_total},
      {"dollars", m.dollars},
      {"slo_attainment", m.slo_attainment},
      {"trace_cpu_s", load_s},
      {"wall_s", wall_s},
      {"cpu_s", cpu_s},
      {"simulated_requests_per_s", static_cast<double>(m.num_requests) / cpu_s},
      {"peak_rss_mb", static_cast<double>(usage.ru_maxrss) / 1024.0},
      {"target_cpu_s", 60},
      {"target_rss_mb", 2048}};
  std::printf("%s\n", line.dump().c_str());
  return 0;
}
