// Simulates one day of traffic on an autoscaled fleet and prints how fast the simulator runs
// and how much memory it needs, as one JSON line. Traffic: a diurnal curve (8 to 40 req/s,
// peak at 14:00) plus on/off bursts (3 req/s on average, 10x while on), over 86,400 s: about
// 2.2 million requests. Fleet: Llama-3-8B on H100, target-concurrency autoscaling between 2
// and 64 replicas with snapshot cold starts. Targets (issue 22): under 15 s on one core, under
// 1 GB (1,024 MiB) of peak RSS.
// Usage: fleet_day [duration_s=86400] [step_by_step=0] (1: no repeated decode steps)
#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "bench/fleet_run.h"
#include "bench/option_pairs.h"

namespace {

nlohmann::json day_scenario(double duration_s) {
  const nlohmann::json diurnal = {{"name", "diurnal"},
                                  {"slo_class", "interactive"},
                                  {"slo", {{"ttft_s", 2.0}}},
                                  {"generator",
                                   {{"kind", "diurnal"},
                                    {"peak_rate", 40},
                                    {"trough_rate", 8},
                                    {"duration_s", duration_s},
                                    {"prompt", tidal::bench::lognormal_lengths(512, 0.9, 4000)},
                                    {"output", tidal::bench::lognormal_lengths(128, 0.8, 1000)}}}};
  const nlohmann::json bursts = {{"name", "bursts"},
                                 {"slo_class", "batch"},
                                 {"generator",
                                  {{"kind", "bursty"},
                                   {"rate", 3},
                                   {"peak_to_mean", 10},
                                   {"mean_burst_s", 120},
                                   {"duration_s", duration_s},
                                   {"prompt", tidal::bench::lognormal_lengths(1024, 0.8, 6000)},
                                   {"output", tidal::bench::lognormal_lengths(200, 0.8, 1000)}}}};
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
  constexpr const char* kUsage = "usage: fleet_day [duration_s=86400] [step_by_step=0]";
  const double duration_s = tidal::bench::positional_number(argc, argv, 1, 86400.0, kUsage);
  const int step_by_step = tidal::bench::positional_number(argc, argv, 2, 0, kUsage);
  tidal::bench::FleetRun run = tidal::bench::run_fleet_bench(
      "fleet_day", day_scenario(duration_s), {.cpu_s = 15, .rss_mb = 1024}, step_by_step != 0);
  run.line["peak_replicas"] = run.metrics.fleet.peak_replicas.at(0);
  std::printf("%s\n", run.line.dump().c_str());
  return 0;
}
