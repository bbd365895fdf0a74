// Simulates a week of a multi-tenant fleet and prints how fast the simulator runs and how much
// memory it needs, as one JSON line. Traffic over 604,800 s, three tenants: "chat" (diurnal, 6
// to 30 req/s, peak at 14:00, interactive), "api" (on/off bursts, 3 req/s on average, 10x while
// on, batch) and "agents" (diurnal, 1 to 5 req/s, peak at 03:00, long prompts, batch): about
// 12 million requests. Fleet: Llama-3-8B on H100 in two pools routed by least outstanding
// requests, each autoscaled on target concurrency with snapshot cold starts: "on_demand" (2 to
// 48 replicas) and "spot" (1 to 32 replicas, interrupted every 6 h on average with 2 min of
// notice). Targets (issue 22): under 60 s on one core, under 2 GB of peak RSS.
// Usage: fleet_week [duration_s=604800] [step_by_step=0] (1: no repeated decode steps)
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

#include "bench/fleet_run.h"
#include "bench/option_pairs.h"

namespace {

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
                                      tidal::bench::lognormal_lengths(512, 0.9, 4000),
                                      tidal::bench::lognormal_lengths(128, 0.8, 1000));
  const nlohmann::json agents = diurnal("agents", "batch", 5, 1, 10800, duration_s,
                                        tidal::bench::lognormal_lengths(4096, 0.6, 16000),
                                        tidal::bench::lognormal_lengths(256, 0.8, 1000));
  const nlohmann::json api = {{"name", "api"},
                              {"slo_class", "batch"},
                              {"generator",
                               {{"kind", "bursty"},
                                {"tenant", "api"},
                                {"rate", 3},
                                {"peak_to_mean", 10},
                                {"mean_burst_s", 120},
                                {"duration_s", duration_s},
                                {"prompt", tidal::bench::lognormal_lengths(1024, 0.8, 6000)},
                                {"output", tidal::bench::lognormal_lengths(200, 0.8, 1000)}}}};
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
  constexpr const char* kUsage = "usage: fleet_week [duration_s=604800] [step_by_step=0]";
  const double duration_s = tidal::bench::positional_number(argc, argv, 1, 604800.0, kUsage);
  const int step_by_step = tidal::bench::positional_number(argc, argv, 2, 0, kUsage);
  tidal::bench::FleetRun run = tidal::bench::run_fleet_bench(
      "fleet_week", week_scenario(duration_s), {.cpu_s = 60, .rss_mb = 2048}, step_by_step != 0);
  run.line["peak_replicas"] = run.metrics.fleet.peak_replicas;
  std::printf("%s\n", run.line.dump().c_str());
  return 0;
}
