// How far the simulator scales in replicas, as two JSON lines.
//
// 1. "fleet_scale": one hour of traffic on 20 pools x 500 replicas (10,000): Poisson chat
//    traffic (`rate` req/s over the fleet) plus on/off batch bursts, routed by least outstanding
//    requests. Target: within 2 GB of peak RSS. num_pools 0 skips it.
// 2. "fleet_scale_idle": the heap bytes one idle replica costs (its scheduler, KV block pool,
//    prefix tables and the fleet's per-replica bookkeeping): a fleet of `idle_replicas`
//    Llama-3-8B replicas on H100 built with nothing to do, the heap in use (mallinfo2) before
//    and after, divided by the replicas. Target: under 100 KB.
//
// Usage: fleet_scale [duration_s=3600] [num_pools=20] [replicas_per_pool=500] [rate=100]
//                    [idle_replicas=1000]
#include <malloc.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/fleet_run.h"
#include "bench/option_pairs.h"
#include "sim/cluster.h"
#include "sim/metrics.h"
#include "sim/scenario.h"
#include "sim/simulator.h"
#include "sim/workload_loader.h"

namespace {

using tidal::bench::peak_rss_mb;

struct Options {
  double duration_s = 3600.0;
  int num_pools = 20;
  int replicas_per_pool = 500;
  double rate = 100.0;  // chat requests per second over the whole fleet
  int idle_replicas = 1000;
};

Options parse_options(int argc, char** argv) {
  Options o;
  constexpr std::string_view kUsage =
      "usage: fleet_scale [duration_s=3600] [num_pools=20] [replicas_per_pool=500] [rate=100] "
      "[idle_replicas=1000]";
  o.duration_s = tidal::bench::positional_number(argc, argv, 1, o.duration_s, kUsage);
  o.num_pools = tidal::bench::positional_number(argc, argv, 2, o.num_pools, kUsage);
  o.replicas_per_pool = tidal::bench::positional_number(argc, argv, 3, o.replicas_per_pool, kUsage);
  o.rate = tidal::bench::positional_number(argc, argv, 4, o.rate, kUsage);
  o.idle_replicas = tidal::bench::positional_number(argc, argv, 5, o.idle_replicas, kUsage);
  return o;
}

nlohmann::json pool(int index, int num_replicas) {
  std::string name = "p";
  name += std::to_string(index);
  return {
      {"name", name}, {"model", "llama-3-8b"}, {"gpu", "H100-SXM"}, {"num_replicas", num_replicas}};
}

nlohmann::json fleet_scenario(const Options& o, int num_pools, int replicas_per_pool) {
  const nlohmann::json chat = {{"name", "chat"},
                               {"slo_class", "interactive"},
                               {"slo", {{"ttft_s", 2.0}}},
                               {"generator",
                                {{"kind", "poisson"},
                                 {"rate", o.rate},
                                 {"duration_s", o.duration_s},
                                 {"prompt", tidal::bench::lognormal_lengths(512, 0.9, 4000)},
                                 {"output", tidal::bench::lognormal_lengths(128, 0.8, 1000)}}}};
  const nlohmann::json bursts = {{"name", "bursts"},
                                 {"slo_class", "batch"},
                                 {"generator",
                                  {{"kind", "bursty"},
                                   {"rate", o.rate / 10.0},
                                   {"peak_to_mean", 10},
                                   {"mean_burst_s", 120},
                                   {"duration_s", o.duration_s},
                                   {"prompt", tidal::bench::lognormal_lengths(1024, 0.8, 6000)},
                                   {"output", tidal::bench::lognormal_lengths(200, 0.8, 1000)}}}};
  nlohmann::json pools = nlohmann::json::array();
  for (int p = 0; p < num_pools; ++p) pools.push_back(pool(p, replicas_per_pool));
  return {{"name", "fleet_scale"},
          {"seed", 1},
          {"timeline_interval_s", 60},
          {"workloads", {chat, bursts}},
          {"fleet", {{"pools", pools}}}};
}

// Bytes of heap in use: the arenas' allocated chunks plus mmap-ed blocks.
double heap_bytes() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<double>(info.uordblks) + static_cast<double>(info.hblkhd);
}

void print_idle_cost(const Options& o) {
  const tidal::sim::Scenario scenario =
      tidal::sim::parse_scenario(fleet_scenario(o, 1, o.idle_replicas), "fleet_scale_idle", "");
  const double before = heap_bytes();
  std::optional<tidal::sim::Cluster> cluster;
  cluster.emplace(scenario);
  const double after = heap_bytes();
  const nlohmann::ordered_json line = {
      {"bench", "fleet_scale_idle"},
      {"num_replicas", cluster->num_replicas()},
      {"num_gpu_blocks_per_replica", cluster->replica(0).num_gpu_blocks()},
      {"bytes_per_idle_replica", (after - before) / static_cast<double>(o.idle_replicas)},
      {"target_bytes_per_idle_replica", 100 * 1024}};
  std::printf("%s\n", line.dump().c_str());
}

void print_run(const Options& o) {
  const tidal::sim::Scenario scenario = tidal::sim::parse_scenario(
      fleet_scenario(o, o.num_pools, o.replicas_per_pool), "fleet_scale", "");
  const double rss_before_mb = peak_rss_mb();
  const auto wall_start = std::chrono::steady_clock::now();
  tidal::sim::RequestTable table = tidal::sim::load_workloads(scenario);
  tidal::sim::RunResult result = tidal::sim::simulate(scenario, std::move(table));
  const tidal::sim::RunMetrics m = tidal::sim::compute_metrics(scenario, result);
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const nlohmann::ordered_json line = {
      {"bench", "fleet_scale"},
      {"num_replicas", o.num_pools * o.replicas_per_pool},
      {"num_pools", o.num_pools},
      {"simulated_s", m.duration_s},
      {"num_requests", m.num_requests},
      {"num_finished", m.num_finished},
      {"num_events", result.num_events},
      {"num_steps", result.num_steps},
      {"slo_attainment", m.slo_attainment},
      {"wall_s", wall_s},
      {"simulated_requests_per_s", static_cast<double>(m.num_requests) / wall_s},
      {"peak_rss_mb", peak_rss_mb()},
      {"peak_rss_mb_before_run", rss_before_mb},
      {"target_rss_mb", 2048}};
  std::printf("%s\n", line.dump().c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_options(argc, argv);
  // The run first, so that its peak RSS is its own.
  if (o.num_pools > 0 && o.replicas_per_pool > 0) print_run(o);
  print_idle_cost(o);
  return 0;
}
