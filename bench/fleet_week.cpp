// Simulates a week of a multi-tenant fleet and prints how fast the simulator runs and how much
// memory it needs, as one JSON line. Traffic over 604,800 s, three tenants: "chat" (diurnal, 6
// to 30 req/s, peak at 14:00, interactive), "api" (on/off bursts, 3 req/s on average, 10x while
// on, batch) and "agents" (diurnal, 1 to 5 req/s, peak at 03:00, long prompts, batch): about
// 12 million requests. Fleet: Llama-3-8B on H100 in two pools routed by least outstanding
// requests, each autoscaled on target concurrency with snapshot cold starts: "on_demand" (2 to
// 48 replicas) and "spot" (1 to 32 replicas, interrupted every 6 h on average with 2 min of
// notice). Targets (issue 22): under 60 s on one core, under 2 GB of peak RSS.
// Usage: fleet_week [duration_s=604800]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string_view>

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

nlohmann::json diurnal(const char* tenant, const char* slo_class, double peak_rate,
                       double trough_rate, double peak_time_s, double duration_s,
                       const nlohmann::json& prompt, const nlohmann::json& output) {
  nlohmann::json workload = {{"name", tenant},
                             {"slo_class", slo_class},
                             {"generator",
                              {{"kind", "diurnal"},
                               {"tenant", tenant},
                               {"peak_rate", peak_rate},
                               {"trough_rate", trough_rate},
                               {"peak_time_s", peak_time_s},
                               {"duration_s", duration_s},
                               {"prompt", prompt},
                               {"output", output}}}};
  if (std::string_view(slo_class) == "interactive") workload["slo"] = {{"ttft_s", 2.0}};
  return workload;
}

nlohmann::json autoscaled_pool(const char* name, int min_replicas, int max_replicas) {
  return {{"name", name},
          {"model", "llama-3-8b"},
          {"gpu", "H100-SXM"},
          {"num_replicas", min_replicas},
          {"autoscaler",
           {{"policy", "target_concurrency"},
            {"target_inputs", 48},
            {"min_replicas", min_replicas},
            {"max_replicas", max_replicas},
            {"evaluation_interval_s", 30},
            {"scale_down_window_s", 600}}},
          {"cold_start", {{"provisioning_s", 30}, {"snapshot", {{"enabled", true}}}}}};
}

nlohmann::json week_scenario(double duration_s) {
  const nlohmann::json chat = diurnal("chat", "interactive", 30, 6, 50400, duration_s,
                                      lengths(512, 0.9, 4000), lengths(128, 0.8, 1000));
  const nlohmann::json agents = diurnal("agents", "batch", 5, 1, 10800, duration_s,
                                        lengths(4096, 0.6, 16000), lengths(256, 0.8, 1000));
  const nlohmann::json api = {{"name", "api"},
                              {"slo_class", "batch"},
                              {"generator",
                               {{"kind", "bursty"},
                                {"tenant", "api"},
                                {"rate", 3},
                                {"peak_to_mean", 10},
                                {"mean_burst_s", 120},
                                {"duration_s", duration_s},
                                {"prompt", lengths(1024, 0.8, 6000)},
                                {"output", lengths(200, 0.8, 1000)}}}};
  nlohmann::json spot = autoscaled_pool("spot", 1, 32);
  spot["pricing"] = {{"market", "spot"}};
  spot["spot"] = {{"mean_time_between_interruptions_s", 21600}, {"notice_s", 120}};
  return {{"name", "fleet_week"},
          {"seed", 1},
          {"timeline_interval_s", 300},
          {"workloads", {chat, api, agents}},
          {"router", {{"policy", "least_outstanding_requests"}}},
          {"fleet", {{"pools", {autoscaled_pool("on_demand", 2, 48), spot}}}}};
}

}  // namespace

int main(int argc, char** argv) {
  const double duration_s = argc > 1 ? std::atof(argv[1]) : 604800.0;
  const tidal::sim::Scenario scenario =
      tidal::sim::parse_scenario(week_scenario(duration_s), "fleet_week", "");
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
      {"bench", "fleet_week"},
      {"simulated_s", m.duration_s},
      {"num_requests", m.num_requests},
      {"num_finished", m.num_finished},
      {"num_events", result.num_events},
      {"num_steps", result.num_steps},
      {"peak_replicas", m.fleet.peak_replicas},
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
