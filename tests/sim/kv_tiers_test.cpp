// KV offload tiers in the event loop (docs/scheduler.md, "KV offload tiers"): the Mooncake
// conversation trace's block hit ratio with an unbounded remote tier against the reuse every
// computed block allows, bounded tiers lower and monotone in capacity, tiers within their
// capacity, load times on the requests' paths, bad configurations one error each, byte-identical
// reruns.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <unordered_set>
#include <vector>

#include "base/input_error.h"
#include "engine/kv/block_hash.h"
#include "fleet_test_util.h"
#include "sim/kv_tiers_summary.h"
#include "sim/run_output.h"
#include "sim_test_util.h"
#include "traces/stats.h"

namespace tidal::sim {
namespace {

using testing::FleetRun;
using testing::run_fleet_scenario;
using testing::scenario_from;

const std::string kMooncake = TIDAL_SHARED_DIR "/traces/mooncake/conversation_trace.jsonl";

nlohmann::json remote_tier(std::optional<double> capacity_gib) {
  // Writes far faster than the GPU evicts, so no write is ever dropped.
  nlohmann::json tier = {
      {"kind", "remote"}, {"read_gb_per_s", 12.5}, {"write_gb_per_s", 1e6}, {"latency_ms", 1.0}};
  if (capacity_gib) tier["capacity_gib"] = *capacity_gib;
  return tier;
}

// The Mooncake trace, prompts only (one output token), on one replica that runs one request at
// a time: each request is admitted after every earlier one computed its prompt, so the run
// offers the tiers every block ever computed, in arrival order.
nlohmann::json mooncake_scenario(const nlohmann::json& tiers) {
  nlohmann::json pool = {{"name", "h100"},
                         {"model", "llama-3.1-8b"},
                         {"gpu", "H100-SXM"},
                         {"scheduler",
                          {{"policy", "continuous"},
                           {"max_num_seqs", 1},
                           {"static_batch_size", 1},
                           {"max_num_batched_tokens", 131072},
                           {"max_model_len", 131072}}}};
  if (!tiers.is_null()) pool["kv_tiers"] = tiers;
  return {{"seed", 1},
          {"workloads", {{{"trace", {{"path", kMooncake}}}, {"max_output_tokens", 1}}}},
          {"fleet", {{"pools", {pool}}}},
          {"output", {{"trace_json", false}}}};
}

const nlohmann::json& pool_summary(const nlohmann::json& kv_tiers) {
  return kv_tiers["pools"][0];
}

// Hit and queried blocks with every computed block findable: for each request in admission order
// the leading run of its hashable blocks (all but the one holding the last prompt token) that
// earlier requests computed, then its full prompt blocks join the cache.
struct Reuse {
  int64_t num_queried_blocks = 0;
  int64_t num_hit_blocks = 0;
};
Reuse engine_block_reuse(const std::vector<Request>& requests, int32_t block_size) {
  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return requests[a].arrival_s < requests[b].arrival_s;
  });
  std::unordered_set<uint64_t> seen;  // lookups only
  Reuse reuse;
  for (const size_t i : order) {
    const Request& r = requests[i];
    const std::vector<uint64_t> hashes = kv::engine_block_hashes(r, block_size);
    const int64_t num_hashable = (r.prompt_tokens - 1) / block_size;
    reuse.num_queried_blocks += num_hashable;
    for (int64_t b = 0; b < num_hashable && seen.contains(hashes[static_cast<size_t>(b)]); ++b) {
      ++reuse.num_hit_blocks;
    }
    for (const uint64_t h : hashes) {
      if (!kv::is_private_hash(h)) seen.insert(h);
    }
  }
  return reuse;
}

TEST(KvTiers, UnboundedRemoteTierFindsEveryComputedBlockOfTheMooncakeTrace) {
  const FleetRun run = run_fleet_scenario(
      scenario_from(mooncake_scenario(nlohmann::json::array({remote_tier({})}))));
  const nlohmann::json summary = kv_tiers_summary_json(run.scenario, run.result);
  const nlohmann::json& pool = pool_summary(summary);
  const Reuse expected = engine_block_reuse(run.result.table.requests, 16);
  EXPECT_EQ(pool["num_queried_blocks"].get<int64_t>(), expected.num_queried_blocks);
  EXPECT_EQ(pool["num_hit_blocks"].get<int64_t>(), expected.num_hit_blocks);
  EXPECT_EQ(pool["tiers"][0]["num_dropped_blocks"].get<int64_t>(), 0);
  EXPECT_GT(pool["hits"][1]["blocks"].get<int64_t>(), 0);  // the remote tier served some
  // `trace stats` counts 512-token source blocks, the partial last one included; the engine
  // can only hit full 16-token blocks before the last prompt token. Same reuse, other units.
  const std::optional<traces::PrefixReuseStats> trace_reuse =
      traces::compute_stats(run.result.table.requests).prefix_reuse;
  ASSERT_TRUE(trace_reuse.has_value());
  EXPECT_NEAR(trace_reuse->ratio, 0.366, 0.0005);
  const double ratio = pool["block_hit_ratio"].get<double>();
  EXPECT_NEAR(ratio, trace_reuse->ratio, 0.05);
  // Without tiers the GPU alone finds far less.
  const FleetRun gpu_only = run_fleet_scenario(scenario_from(mooncake_scenario(nullptr)));
  int64_t num_gpu_hit_blocks = 0;
  for (const ReplicaSummary& r : gpu_only.result.replicas) {
    num_gpu_hit_blocks += r.block_manager.num_hit_blocks;
  }
  EXPECT_LT(num_gpu_hit_blocks, expected.num_hit_blocks / 2);
}

TEST(KvTiers, BoundedRemoteTierHitsLessAndMonotoneInCapacityWithinItsCapacity) {
  std::vector<int64_t> hits;
  for (const double gib : {256.0, 1024.0, 4096.0}) {
    const FleetRun run = run_fleet_scenario(
        scenario_from(mooncake_scenario(nlohmann::json::array({remote_tier(gib)}))));
    const nlohmann::json pool = pool_summary(kv_tiers_summary_json(run.scenario, run.result));
    const nlohmann::json& tier = pool["tiers"][0];
    EXPECT_EQ(tier["capacity_blocks"].get<int64_t>(),
              static_cast<int64_t>(gib * 1024 * 1024 * 1024 / pool["block_bytes"].get<double>()));
    EXPECT_LE(tier["peak_num_blocks"].get<int64_t>(), tier["capacity_blocks"].get<int64_t>());
    hits.push_back(pool["num_hit_blocks"].get<int64_t>());
  }
  const Reuse unbounded = engine_block_reuse(
      run_fleet_scenario(scenario_from(mooncake_scenario(nullptr))).result.table.requests, 16);
  EXPECT_LT(hits[0], hits[1]);
  EXPECT_LT(hits[1], hits[2]);
  EXPECT_LT(hits[2], unbounded.num_hit_blocks);
}

TEST(KvTiers, RerunsAreByteIdenticalAndLoadsAddTime) {
  nlohmann::json j = mooncake_scenario(nlohmann::json::array(
      {{{"kind", "cpu"}, {"capacity_gib", 16}, {"read_gb_per_s", 25}, {"write_gb_per_s", 25}},
       remote_tier(64.0)}));
  j["duration_s"] = 300;
  j["fleet"]["pools"][0]["scheduler"] = {{"policy", "chunked_prefill"}, {"max_model_len", 131072}};
  j["fleet"]["pools"][0]["num_replicas"] = 2;
  const FleetRun a = run_fleet_scenario(scenario_from(j));
  const FleetRun b = run_fleet_scenario(scenario_from(j));
  const std::string summary_a = summary_json(a.scenario, a.result, a.metrics).dump();
  EXPECT_EQ(summary_a, summary_json(b.scenario, b.result, b.metrics).dump());
  const nlohmann::json kv_tiers = kv_tiers_summary_json(a.scenario, a.result);
  const nlohmann::json& pool = pool_summary(kv_tiers);
  EXPECT_GT(pool["num_loads"].get<int64_t>(), 0);
  EXPECT_GT(pool["load_s"].get<double>(), 0.0);
  EXPECT_GT(pool["hits"][1]["tokens"].get<int64_t>(), 0);  // the CPU tier served some
  for (const nlohmann::json& tier : pool["tiers"]) {
    EXPECT_LE(tier["peak_num_blocks"].get<int64_t>(), tier["capacity_blocks"].get<int64_t>());
  }
  for (const RequestRecord& r : a.result.records) EXPECT_EQ(r.status, RequestStatus::finished);
  // Without tiers the summary has no kv_tiers section.
  const FleetRun plain = run_fleet_scenario(scenario_from(mooncake_scenario(nullptr)));
  EXPECT_FALSE(summary_json(plain.scenario, plain.result, plain.metrics).contains("kv_tiers"));
}

// One error naming the path for each bad kv_tiers.
void expect_error(const nlohmann::json& pool_changes, const std::string& message) {
  nlohmann::json j = mooncake_scenario(nullptr);
  j["fleet"]["pools"][0].update(pool_changes);
  try {
    scenario_from(j);
    ADD_FAILURE() << "no error for " << pool_changes.dump();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

TEST(KvTiers, BadConfigsAreOneClearErrorEach) {
  const nlohmann::json cpu = {
      {"kind", "cpu"}, {"capacity_gib", 8}, {"read_gb_per_s", 25}, {"write_gb_per_s", 25}};
  const auto with = [&](const std::string& key, const nlohmann::json& value) {
    nlohmann::json t = cpu;
    t[key] = value;
    return nlohmann::json{{"kv_tiers", nlohmann::json::array({t})}};
  };
  expect_error(with("read_gb_per_s", 0), "kv_tiers[0].read_gb_per_s: must be > 0");
  expect_error(with("write_gb_per_s", -1), "kv_tiers[0].write_gb_per_s: must be > 0");
  expect_error(with("capacity_gib", 0), "kv_tiers[0].capacity_gib");
  expect_error(with("kind", "tape"), "kv_tiers[0].kind: \"tape\" is not a tier kind");
  expect_error(with("bandwidth", 3), "kv_tiers[0].bandwidth: unknown key");
  nlohmann::json no_capacity = cpu;
  no_capacity.erase("capacity_gib");
  expect_error({{"kv_tiers", nlohmann::json::array({no_capacity})}},
               "kv_tiers[0].capacity_gib: missing (required for a cpu tier");
  expect_error({{"kv_tiers", nlohmann::json::array({remote_tier({}), cpu})}},
               "kv_tiers[1]: below the remote tier");
  expect_error({{"kv_tiers", nlohmann::json::array({cpu})}, {"prefix_caching", false}},
               "fleet.pools[0].kv_tiers: needs prefix_caching");
  expect_error({{"kv_tiers", nlohmann::json::array({cpu})},
                {"scheduler", {{"policy", "static"}, {"max_model_len", 131072}}}},
               "fleet.pools[0].kv_tiers: not with scheduler.policy static");
  // Two pools sharing the remote tier must serve the same model and block size.
  nlohmann::json j = mooncake_scenario(nlohmann::json::array({remote_tier(64.0)}));
  nlohmann::json second = j["fleet"]["pools"][0];
  second["name"] = "other";
  second["block_size"] = 32;
  j["fleet"]["pools"].push_back(second);
  try {
    scenario_from(j);
    ADD_FAILURE() << "no error for a shared remote tier of two block sizes";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("fleet.pools[1].kv_tiers[0]: the remote tier is one "
                                         "store shared with fleet.pools[0]"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tidal::sim
