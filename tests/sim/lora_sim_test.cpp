// LoRA adapters in the simulator (docs/scenario.md, "LoRA adapters"): adapter residency is LRU
// over max_cpu_loras, loads and adapter compute lengthen steps, requests reach only pools
// serving their adapter, lora_affinity keeps an adapter where it is loaded, and bad keys are one
// clear error each.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/input_error.h"
#include "fleet_test_util.h"
#include "sim/lora_cache.h"
#include "sim/run_output.h"
#include "sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::h100_pool;
using testing::make_request;
using testing::run_fleet_scenario;
using testing::scenario_from;
using testing::TempDir;

TEST(LoraCache, EvictsTheLeastRecentlyUsed) {
  LoraCache cache(2, 0.5);
  const std::string a = "a", b = "b", c = "c";
  const std::vector<const std::string*> steps[] = {{&a}, {&b}, {&a}, {&c}, {&b}, {&b, &c}};
  const double seconds[] = {0.5, 0.5, 0.0, 0.5, 0.5, 0.0};
  for (size_t i = 0; i < std::size(steps); ++i) {
    EXPECT_DOUBLE_EQ(cache.use(steps[i]), seconds[i]) << i;
  }
  // c evicted b (a was used more recently), then b evicted a.
  EXPECT_TRUE(cache.holds(b));
  EXPECT_TRUE(cache.holds(c));
  EXPECT_FALSE(cache.holds(a));
  EXPECT_EQ(cache.stats().num_loads, 4);
  EXPECT_EQ(cache.stats().num_hits, 3);
  EXPECT_EQ(cache.stats().num_evictions, 2);
  EXPECT_DOUBLE_EQ(cache.stats().load_s, 2.0);
  EXPECT_EQ(cache.stats().num_adapter_steps, 7);
}

// Requests 2 s apart, request i asking for adapters[i % size] ("" = the base model).
nlohmann::json lora_run(const TempDir& dir, const std::vector<std::string>& adapters, int num,
                        const std::vector<nlohmann::json>& pools, const std::string& router = "") {
  std::vector<Request> requests;
  for (int i = 0; i < num; ++i) {
    Request r = make_request(i, 2.0 * i, 500, 20);
    r.adapter = adapters[static_cast<size_t>(i) % adapters.size()];
    requests.push_back(r);
  }
  std::string name = "t";  // one file per adapter list: scenarios of one test coexist
  for (const std::string& a : adapters) name += "-" + a;
  nlohmann::json j = {
      {"workloads", {{{"trace", {{"path", dir.write_trace(name + ".jsonl", requests)}}}}}},
      {"fleet", {{"pools", pools}}}};
  if (!router.empty()) j["router"] = {{"policy", router}};
  return j;
}

nlohmann::json lora_pool(const nlohmann::json& lora, int num_replicas = 1) {
  nlohmann::json pool = h100_pool(num_replicas);
  pool["lora"] = lora;
  return pool;
}

TEST(LoraSim, AdapterBytesLoadsAndStepTimeFollowTheModel) {
  const TempDir dir("lora_sim_time");
  // Llama-3-8B, rank 16: per layer q 4096+4096, k and v 4096+1024 each, o 4096+4096, gate and
  // up 4096+14336 each, down 14336+4096 = 81,920 widths; x 32 layers x 16 x 2 bytes.
  const Scenario s = scenario_from(
      lora_run(
          dir, {"x", "y", "z"}, 6,
          {lora_pool({{"max_loras_per_batch", 1}, {"max_cpu_loras", 2}, {"load_gb_per_s", 1}})}),
      dir.path().string());
  ASSERT_TRUE(s.pools[0].lora);
  EXPECT_DOUBLE_EQ(s.pools[0].lora->adapter_bytes, 81920.0 * 32 * 16 * 2);
  EXPECT_EQ(s.pools[0].scheduler.max_loras_per_batch, 1);
  // The GPU keeps room for one adapter: fewer KV blocks than the same pool without lora.
  const Scenario plain = scenario_from(lora_run(dir, {""}, 6, {h100_pool(1)}), dir.path().string());
  EXPECT_LT(s.pools[0].kv.num_gpu_blocks, plain.pools[0].kv.num_gpu_blocks);
  testing::FleetRun run = run_fleet_scenario(s);
  testing::FleetRun base = run_fleet_scenario(plain);
  // x y z x y z, two loaded at a time: every use is a load (z evicts x, x evicts y, ...).
  const LoraStats& stats = run.result.replicas[0].lora;
  EXPECT_EQ(stats.num_loads, 6);
  EXPECT_GT(stats.num_hits, 0);  // each request's later steps find its adapter loaded
  EXPECT_DOUBLE_EQ(stats.load_s, 6 * 81920.0 * 32 * 16 * 2 / 1e9);
  // A load (83.9 MB at 1 GB/s: 83.9 ms) lands on the request's first step: TTFT grows by at
  // least that (bytes at 1 GB/s are nanoseconds).
  for (size_t i = 0; i < run.result.records.size(); ++i) {
    const int64_t ttft = run.result.records[i].first_token_ns - run.result.records[i].arrival_ns;
    const int64_t base_ttft =
        base.result.records[i].first_token_ns - base.result.records[i].arrival_ns;
    EXPECT_GE(ttft - base_ttft, static_cast<int64_t>(81920.0 * 32 * 16 * 2)) << i;
  }
  const nlohmann::ordered_json summary = summary_json(run.scenario, run.result, run.metrics);
  EXPECT_EQ(summary["lora"]["num_adapters"], 3);
  EXPECT_EQ(summary["lora"]["pools"][0]["num_loads"], 6);
  EXPECT_EQ(summary["scenario"]["fleet"]["pools"][0]["lora"]["max_cpu_loras"], 2);
  EXPECT_FALSE(summary_json(base.scenario, base.result, base.metrics).contains("lora"));
}

TEST(LoraSim, RequestsReachOnlyPoolsServingTheirAdapter) {
  const TempDir dir("lora_sim_routing");
  nlohmann::json dedicated = lora_pool({{"adapters", {"x"}}});
  dedicated["name"] = "x-only";
  nlohmann::json shared = lora_pool({{"max_loras_per_batch", 2}, {"max_cpu_loras", 4}});
  shared["name"] = "shared";
  nlohmann::json base = h100_pool(1);
  base["name"] = "base";
  const testing::FleetRun run = run_fleet_scenario(scenario_from(
      lora_run(dir, {"x", "y", "", "x"}, 40, {dedicated, shared, base}), dir.path().string()));
  for (size_t i = 0; i < run.result.records.size(); ++i) {
    const RequestRecord& rec = run.result.records[i];
    ASSERT_EQ(rec.status, RequestStatus::finished) << i;
    const int32_t pool = run.result.replicas[static_cast<size_t>(rec.replica)].pool;
    const std::string& adapter = run.result.table.requests[i].adapter;
    if (adapter == "y") {
      EXPECT_EQ(pool, 1) << i;
    }
    if (adapter == "x") {
      EXPECT_NE(pool, 2) << i;
    }
  }
}

TEST(LoraSim, AffinityKeepsEachAdapterWhereItIsLoaded) {
  const TempDir dir("lora_sim_affinity");
  const std::vector<nlohmann::json> pools{lora_pool({{"max_cpu_loras", 1}}, 2)};
  const testing::FleetRun spread = run_fleet_scenario(scenario_from(
      lora_run(dir, {"x", "x", "y", "y"}, 40, pools, "round_robin"), dir.path().string()));
  const testing::FleetRun affine = run_fleet_scenario(scenario_from(
      lora_run(dir, {"x", "x", "y", "y"}, 40, pools, "lora_affinity"), dir.path().string()));
  auto loads = [](const testing::FleetRun& run) {
    return run.result.replicas[0].lora.num_loads + run.result.replicas[1].lora.num_loads;
  };
  EXPECT_EQ(loads(affine), 2);  // each adapter loaded once, on its own replica
  EXPECT_GT(loads(spread), 10);
}

TEST(LoraSim, BadKeysAndUnservedAdaptersAreOneClearError) {
  const TempDir dir("lora_sim_errors");
  const std::string base = dir.path().string();
  const std::vector<std::pair<nlohmann::json, std::string>> cases{
      {{{"rank", 7}}, "fleet.pools[0].lora.rank: must be one of 1, 8, 16"},
      {{{"max_loras_per_batch", 4}, {"max_cpu_loras", 2}},
       "fleet.pools[0].lora.max_cpu_loras: must be between max_loras_per_batch (4)"},
      {{{"max_loras_per_batch", 0}}, "fleet.pools[0].lora.max_loras_per_batch"},
      {{{"load_gb_per_s", -1}}, "fleet.pools[0].lora.load_gb_per_s"},
      {{{"adapters", {"x", "x"}}}, "fleet.pools[0].lora.adapters[1]: \"x\" is listed twice"},
      {{{"ranks", 8}}, "fleet.pools[0].lora"},
  };
  for (const auto& [lora, expected] : cases) {
    const std::string error =
        testing::scenario_error(lora_run(dir, {"x"}, 2, {lora_pool(lora)}), base);
    EXPECT_NE(error.find(expected), std::string::npos) << lora.dump() << ": " << error;
  }
  // A model the adapters are not modelled for: the lora object itself is named, without a
  // trailing dot.
  nlohmann::json mla_pool = lora_pool(nlohmann::json::object());
  mla_pool["model"] = "deepseek-v3";
  mla_pool["tp"] = 8;
  const std::string mla_error = testing::scenario_error(lora_run(dir, {"x"}, 2, {mla_pool}), base);
  EXPECT_NE(mla_error.find("fleet.pools[0].lora: deepseek-v3 uses multi-head latent attention"),
            std::string::npos)
      << mla_error;
  // An adapter no pool serves: named with its request before the run.
  const Scenario s = scenario_from(lora_run(dir, {"", "z"}, 2, {h100_pool(1)}), base);
  try {
    (void)run_scenario(s);
    FAIL() << "an unserved adapter ran";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("request 1 asks for LoRA adapter \"z\", which no pool "
                                         "serves (pools with lora: none)"),
              std::string::npos)
        << e.what();
  }
}

TEST(LoraSim, WorkloadAdaptersAreZipfPopularAndSeeded) {
  const nlohmann::json j = {
      {"seed", 3},
      {"workloads",
       {{{"generator", {{"kind", "poisson"}, {"rate", 20}, {"duration_s", 50}}},
         {"adapters", {{"count", 20}, {"zipf", 1.2}, {"prefix", "ft-"}}}}}},
      {"fleet", {{"pools", {lora_pool({{"max_loras_per_batch", 4}, {"max_cpu_loras", 8}})}}}}};
  const testing::FleetRun a = run_fleet_scenario(scenario_from(j));
  const testing::FleetRun b = run_fleet_scenario(scenario_from(j));
  std::vector<int64_t> counts(20, 0);
  for (size_t i = 0; i < a.result.table.requests.size(); ++i) {
    const std::string& adapter = a.result.table.requests[i].adapter;
    ASSERT_EQ(adapter.rfind("ft-", 0), 0u) << adapter;
    ++counts[std::stoul(adapter.substr(3))];
    EXPECT_EQ(adapter, b.result.table.requests[i].adapter);
  }
  // The head is far more popular than the tail (1 / (i + 1)^1.2).
  EXPECT_GT(counts[0], 5 * counts[19]);
  EXPECT_GT(counts[0], counts[1]);
}

}  // namespace
}  // namespace tidal::sim
