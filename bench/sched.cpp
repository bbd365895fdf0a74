// Cost of the shared scheduler per step, as the simulator pays it: a closed loop of
// schedule() / update() with a fixed step time, no step-time model, and again with repeat_step()
// where it applies (as the simulator runs). Prints one JSON line per figure:
//   {"bench":"sched_step","load":"offline"|"online",...}   ns per step and per scheduled seq
// Rates use the thread's CPU time (the benchmark machine is often shared); wall time is shown.
//   {"bench":"kv_block_manager",...}                         allocate/free/prefix ops per second
// Workloads are seeded and synthetic with Azure-conversation-like lengths (prompt mean ~1.1k,
// output mean ~210 tokens); the KV pool is Llama-3-8B-on-H100 sized (28,000 blocks of 16).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "bench/option_pairs.h"
#include "engine/kv/block_hash.h"
#include "engine/kv/block_manager.h"
#include "engine/sched/scheduler.h"
#include "traces/request.h"

namespace {

using tidal::Request;
using tidal::kv::BlockManager;
using tidal::kv::BlockManagerConfig;
using tidal::sched::RejectReason;
using tidal::sched::RequestEvent;
using tidal::sched::Scheduler;
using tidal::sched::SchedulerConfig;
using tidal::sched::SeqOutput;
using tidal::sched::StepPlan;

// CPU time of this thread: the machine running benchmarks is often shared, and the loop is
// single-threaded, so CPU seconds are a steadier measure than wall seconds.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

// Lognormal by Box-Muller, clamped to [1, max].
int64_t lognormal_tokens(std::mt19937_64& rng, double median, double sigma, int64_t max) {
  const double u1 = 1.0 - uniform01(rng);
  const double u2 = uniform01(rng);
  const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  const auto n = static_cast<int64_t>(std::llround(median * std::exp(sigma * z)));
  return std::max<int64_t>(1, std::min(n, max));
}

std::vector<Request> workload(uint64_t seed, int64_t num_requests, double rate_per_s) {
  std::mt19937_64 rng(seed);
  std::vector<Request> requests;
  double t = 0.0;
  for (int64_t i = 0; i < num_requests; ++i) {
    if (rate_per_s > 0) t += -std::log(1.0 - uniform01(rng)) / rate_per_s;
    Request r;
    r.id = i;
    r.arrival_s = t;
    r.prompt_tokens = lognormal_tokens(rng, 1020, 0.6, 6000);
    r.output_tokens = lognormal_tokens(rng, 129, 0.9, 2000);
    requests.push_back(r);
  }
  return requests;
}

struct LoopResult {
  int64_t num_steps = 0;
  int64_t num_seqs = 0;
  int64_t num_finished = 0;
  double seconds = 0.0;  // thread CPU time
  double wall_seconds = 0.0;
};

// Replays `requests` through one scheduler; each step takes `step_ns` of simulated time.
// Requests arriving during a step are added before it ends, as the simulator delivers them. With
// `repeat`, a step that Scheduler::repeat_step can repeat is applied and planned by it, as the
// simulator does; the plans are the same either way.
LoopResult run_loop(const SchedulerConfig& config, const std::vector<Request>& requests,
                    int64_t step_ns, bool repeat) {
  BlockManagerConfig kv_config;
  kv_config.num_gpu_blocks = 28000;
  kv_config.num_cpu_blocks = 4000;
  BlockManager kv(kv_config);
  Scheduler scheduler(config, kv);
  LoopResult result;
  std::vector<SeqOutput> outputs;
  const auto start = std::chrono::steady_clock::now();
  const double start_cpu = thread_cpu_seconds();
  size_t next = 0;
  int64_t now = 0;
  bool planned = false;  // repeat_step planned this step
  const auto add_arrivals = [&] {
    while (next < requests.size() && std::llround(requests[next].arrival_s * 1e9) <= now) {
      if (scheduler.add_request(requests[next], now) != RejectReason::none) ++result.num_finished;
      ++next;
    }
  };
  while (next < requests.size() || scheduler.has_unfinished()) {
    add_arrivals();
    const StepPlan& plan = planned ? scheduler.plan() : scheduler.schedule(now);
    planned = false;
    if (plan.empty()) {
      int64_t wake = scheduler.next_wakeup_ns();
      if (next < requests.size()) {
        wake = std::min<int64_t>(wake, std::llround(requests[next].arrival_s * 1e9));
      }
      now = wake;
      continue;
    }
    outputs.clear();
    for (const auto& seq : plan.seqs) {
      // Accept half of the draft tokens (rounded up) when speculating.
      outputs.push_back({seq.samples ? 1 + (seq.num_spec_tokens + 1) / 2 : 0});
    }
    ++result.num_steps;
    result.num_seqs += static_cast<int64_t>(plan.seqs.size());
    now += step_ns;
    add_arrivals();
    std::optional<std::span<const RequestEvent>> events;
    if (repeat && config.num_speculative_tokens == 0) events = scheduler.repeat_step(now);
    planned = events.has_value();
    if (!planned) events = scheduler.update(outputs, now);
    for (const RequestEvent& event : *events) result.num_finished += event.finished ? 1 : 0;
  }
  result.seconds = thread_cpu_seconds() - start_cpu;
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

void bench_steps(const char* load, const SchedulerConfig& config,
                 const std::vector<Request>& requests, int64_t step_ns, bool repeat) {
  const LoopResult r = run_loop(config, requests, step_ns, repeat);
  std::printf(
      "{\"bench\":\"sched_step\",\"load\":\"%s\",\"policy\":\"%s\",\"num_speculative_tokens\":%d,"
      "\"repeat_step\":%s,\"num_requests\":%zu,\"num_finished\":%lld,\"num_steps\":%lld,\"mean_"
      "batch\":%.2f,"
      "\"cpu_seconds\":%.4f,\"wall_seconds\":%.4f,\"ns_per_step\":%.1f,\"ns_per_seq\":%.1f,"
      "\"steps_per_s\":%.0f}\n",
      load, config.policy.c_str(), config.num_speculative_tokens, repeat ? "true" : "false",
      requests.size(), static_cast<long long>(r.num_finished), static_cast<long long>(r.num_steps),
      static_cast<double>(r.num_seqs) / static_cast<double>(r.num_steps), r.seconds, r.wall_seconds,
      1e9 * r.seconds / static_cast<double>(r.num_steps),
      1e9 * r.seconds / static_cast<double>(r.num_seqs),
      static_cast<double>(r.num_steps) / r.seconds);
}

// Allocate a prompt with prefix lookup, grow it by decode tokens, cache and free it.
void bench_block_manager() {
  BlockManagerConfig config;
  config.num_gpu_blocks = 28000;
  BlockManager kv(config);
  std::mt19937_64 rng(9);
  constexpr int64_t kNumRequests = 200000;
  std::vector<std::vector<uint64_t>> prompts;  // [64] shared-prefix families
  for (int64_t f = 0; f < 64; ++f) {
    Request r;
    r.id = f;
    r.prompt_tokens = 1024;
    r.prefix_block_tokens = 512;
    r.prefix_blocks = {static_cast<uint64_t>(f), static_cast<uint64_t>(f) + 1000};
    prompts.push_back(tidal::kv::engine_block_hashes(r, 16));
  }
  int64_t num_ops = 0;
  const double start_cpu = thread_cpu_seconds();
  for (int64_t id = 0; id < kNumRequests; ++id) {
    const auto& hashes = prompts[rng() % prompts.size()];
    kv.acquire_prefix(id, hashes);
    kv.allocate_slots(id, 1024);
    kv.cache_blocks(id, hashes, 64);
    for (int64_t t = 1025; t <= 1024 + 64; ++t) kv.allocate_slots(id, t);  // 64 decode steps
    kv.free(id);
    num_ops += 4 + 64;
  }
  const double seconds = thread_cpu_seconds() - start_cpu;
  std::printf(
      "{\"bench\":\"kv_block_manager\",\"num_requests\":%lld,\"num_ops\":%lld,\"cpu_seconds\":%.4f,"
      "\"ns_per_op\":%.1f,\"hit_rate\":%.3f}\n",
      static_cast<long long>(kNumRequests), static_cast<long long>(num_ops), seconds,
      1e9 * seconds / static_cast<double>(num_ops),
      static_cast<double>(kv.stats().num_hit_blocks) /
          static_cast<double>(kv.stats().num_queried_blocks));
}

}  // namespace

int main(int argc, char** argv) {
  tidal::bench::option_pairs(
      argc, argv, {}, "usage: bench_sched (no options: prints one JSON line per policy and load)");
  // Offline: 20k requests queued at once; large batches.
  const std::vector<Request> offline = workload(1, 20000, 0.0);
  // Online: one replica's share of an Azure-conversation-like hour (~0.7 requests/s), 10 ms
  // steps; small batches, so per-step overhead dominates.
  const std::vector<Request> online = workload(2, 2500, 0.7);
  for (const char* policy : {"static", "continuous", "chunked_prefill"}) {
    SchedulerConfig config;
    config.policy = policy;
    if (config.policy == "chunked_prefill") config.max_num_batched_tokens = 2048;
    for (const bool repeat : {false, true}) {
      bench_steps("offline", config, offline, 30000000, repeat);
      bench_steps("online", config, online, 10000000, repeat);
    }
  }
  SchedulerConfig spec;
  spec.num_speculative_tokens = 4;
  bench_steps("offline", spec, offline, 30000000, false);
  bench_block_manager();
  return 0;
}
