// Fleet mechanisms (sim/fleet). Prints one JSON line per figure:
//   {"bench":"cold_start",...}     default stages for published configurations, beside the
//                                  published figure (thaw-vllm package page, FACTS.md)
//   {"bench":"billing_ledger",...} record() cost and report()/interval_costs() time for 64
//                                  replicas cycling through their lifecycle over 24 hours
//   {"bench":"autoscaler",...}     ns per decide() for each demand-driven policy
//   {"bench":"network_graph",...}  all-pairs shortest paths for a random graph of regions
// Rates use the thread's CPU time (the benchmark machine is often shared).
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/option_pairs.h"
#include "sim/fleet/autoscaler.h"
#include "sim/fleet/billing.h"
#include "sim/fleet/cold_start.h"
#include "sim/fleet/network.h"

namespace {

using namespace tidal::fleet;
namespace perf = tidal::perf;

constexpr int64_t kS = 1'000'000'000;

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void bench_cold_start(const char* model_name, const char* gpu_name, int32_t tp, const char* storage,
                      double published_cold_s, double published_snapshot_s) {
  const perf::ModelSpec& model = perf::find_model(model_name, "bench");
  const perf::GpuSpec& gpu = perf::find_gpu(gpu_name, "bench");
  perf::Deployment deployment;
  deployment.tp = tp;
  const perf::MemoryPlan memory = perf::plan_memory(model, gpu, deployment, "bench");
  const ColdStartSpec cold =
      parse_cold_start_spec({{"weight_storage", storage}}, "bench", "cold_start");
  const ColdStartSpec snap =
      parse_cold_start_spec({{"snapshot", {{"enabled", true}}}}, "bench", "cold_start");
  const ColdStartBreakdown c = cold_start(cold, model, gpu, deployment, memory);
  const ColdStartBreakdown s = cold_start(snap, model, gpu, deployment, memory);
  std::printf(
      "{\"bench\":\"cold_start\",\"model\":\"%s\",\"gpu\":\"%s\",\"tp\":%d,\"storage\":\"%s\","
      "\"weight_load_s\":%.2f,\"engine_init_s\":%.2f,\"kv_alloc_s\":%.2f,"
      "\"engine_start_s\":%.2f,\"published_cold_s\":%.1f,\"snapshot_restore_s\":%.2f,"
      "\"snapshot_engine_start_s\":%.2f,\"published_snapshot_s\":%.1f,"
      "\"provisioning_s\":%.1f,\"image_pull_s\":%.1f,\"total_cold_s\":%.2f,"
      "\"total_snapshot_s\":%.2f}\n",
      model_name, gpu_name, tp, storage, c.weight_load_s, c.engine_init_s, c.kv_alloc_s,
      c.engine_start_s(), published_cold_s, s.snapshot_restore_s, s.engine_start_s(),
      published_snapshot_s, c.provisioning_s, c.image_pull_s, c.total_s(), s.total_s());
}

void bench_billing() {
  PricingSpec spec;
  spec.reserved_replicas = 8;
  spec.granularity = BillingGranularity::per_minute;
  const PoolPricing pool = resolve_pricing(spec, perf::find_gpu("H100-SXM", "bench"), 2, "pool");
  BillingLedger ledger({pool, pool});
  std::mt19937_64 rng(11);
  const int32_t num_replicas = 64;
  const int64_t end_ns = 24 * 3600 * kS;
  std::vector<int> state(num_replicas, static_cast<int>(LifecycleState::stopped));
  int64_t num_records = 0;
  const double start = thread_cpu_seconds();
  for (int64_t now = 0; now < end_ns; now += static_cast<int64_t>(rng() % (200'000'000)) + 1) {
    const auto replica = static_cast<int32_t>(rng() % num_replicas);
    state[replica] = (state[replica] + 1) % kNumLifecycleStates;
    ledger.record(now, replica, replica % 2, static_cast<LifecycleState>(state[replica]));
    ++num_records;
  }
  ledger.finish(end_ns);
  const double recorded = thread_cpu_seconds();
  const BillingReport report = ledger.report();
  const double reported = thread_cpu_seconds();
  const std::vector<MicroDollars> timeline = ledger.interval_costs(kS);
  const double timelined = thread_cpu_seconds();
  MicroDollars timeline_sum = 0;
  for (MicroDollars cost : timeline) timeline_sum += cost;
  std::printf(
      "{\"bench\":\"billing_ledger\",\"num_replicas\":%d,\"num_records\":%lld,"
      "\"ns_per_record\":%.1f,\"report_s\":%.4f,\"num_intervals\":%zu,\"interval_costs_s\":%.4f,"
      "\"total_dollars\":\"%s\",\"timeline_sum_equals_total\":%s}\n",
      num_replicas, static_cast<long long>(num_records),
      (recorded - start) * 1e9 / static_cast<double>(num_records), reported - recorded,
      timeline.size(), timelined - reported, format_dollars(report.fleet.total).c_str(),
      timeline_sum == report.fleet.total ? "true" : "false");
}

void bench_autoscaler(const char* policy) {
  const AutoscalerSpec spec =
      parse_autoscaler_spec({{"policy", policy}, {"scale_up_delay_s", 30}}, "bench", "autoscaler");
  std::unique_ptr<Autoscaler> autoscaler = make_autoscaler(spec, 4);
  std::mt19937_64 rng(5);
  const int64_t num_decisions = 1'000'000;
  std::vector<double> ttft(8);  // [num_new_samples]
  int64_t checksum = 0;
  const double start = thread_cpu_seconds();
  for (int64_t i = 0; i < num_decisions; ++i) {
    FleetObservation observation;
    observation.time_ns = i * kS;
    observation.num_replicas_by_state[static_cast<size_t>(LifecycleState::warm)] =
        static_cast<int32_t>(rng() % 64);
    observation.num_running = static_cast<int64_t>(rng() % 1000);
    observation.num_waiting_at_replicas = static_cast<int64_t>(rng() % 200);
    for (double& t : ttft) t = static_cast<double>(rng() % 3000) * 1e-3;
    observation.new_ttft_s = ttft;
    checksum += autoscaler->decide(observation).num_desired_replicas;
  }
  const double seconds = thread_cpu_seconds() - start;
  std::printf(
      "{\"bench\":\"autoscaler\",\"policy\":\"%s\",\"num_decisions\":%lld,"
      "\"ns_per_decision\":%.1f,\"checksum\":%lld}\n",
      policy, static_cast<long long>(num_decisions), seconds * 1e9 / num_decisions,
      static_cast<long long>(checksum));
}

void bench_network(int32_t num_regions) {
  std::mt19937_64 rng(3);
  auto name = [](int32_t r) { return fmt::format("r{}", r); };
  nlohmann::json regions = nlohmann::json::array();
  for (int32_t r = 0; r < num_regions; ++r) {
    regions.push_back({{"name", name(r)}, {"kind", r % 4 == 0 ? "client" : "gpu"}});
  }
  // A random tree (connected) plus about two extra links per region, no repeated pairs.
  std::set<std::pair<int32_t, int32_t>> pairs;
  for (int32_t r = 1; r < num_regions; ++r) pairs.emplace(static_cast<int32_t>(rng() % r), r);
  for (int32_t e = 0; e < 2 * num_regions; ++e) {
    const auto a = static_cast<int32_t>(rng() % num_regions);
    const auto b = static_cast<int32_t>(rng() % num_regions);
    if (a != b) pairs.emplace(std::min(a, b), std::max(a, b));
  }
  nlohmann::json links = nlohmann::json::array();
  for (const auto& [a, b] : pairs) {
    links.push_back(
        {{"from", name(a)}, {"to", name(b)}, {"latency_ms", 1 + static_cast<double>(rng() % 100)}});
  }
  const double start = thread_cpu_seconds();
  const NetworkGraph graph(
      parse_network_spec({{"regions", regions}, {"links", links}}, "bench", "network"));
  const double seconds = thread_cpu_seconds() - start;
  std::printf(
      "{\"bench\":\"network_graph\",\"num_regions\":%d,\"num_links\":%zu,\"all_pairs_s\":%.4f,"
      "\"latency_r0_to_last_ms\":%.1f}\n",
      num_regions, links.size(), seconds, graph.latency_s(0, num_regions - 1).value_or(-1) * 1000);
}

}  // namespace

int main(int argc, char** argv) {
  tidal::bench::option_pairs(argc, argv, {},
                             "usage: bench_fleet (no options: prints one JSON line per figure)");
  bench_cold_start("llama-3-8b", "H100-SXM", 1, "local_nvme", 20.7, 3.7);
  bench_cold_start("llama-3-70b", "A100-80GB", 2, "network_disk", 546.5, 31.8);
  bench_billing();
  for (const char* policy : {"target_concurrency", "queue_depth", "latency_slo"}) {
    bench_autoscaler(policy);
  }
  bench_network(200);
  return 0;
}
