// Engine presets (pool key `engine`): each engine's defaults resolved on real catalog GPUs, the
// pool's own keys winning, errors naming the JSON path, the echo and the resolved defaults in
// summary.json, the front-end time entering TTFT exactly, one front end per replica taking
// requests one at a time, and no change without the key.
#include "perf/engine_preset.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "perf/gpu_catalog.h"
#include "perf/model_catalog.h"
#include "sim/metrics.h"
#include "sim/run_output.h"
#include "sim/scenario.h"
#include "sim/scenario_engine.h"
#include "sim/simulator.h"
#include "tests/sim/sim_test_util.h"

namespace tidal::sim {
namespace {

using nlohmann::json;
using testing::make_request;
using testing::scenario_from;
using testing::TempDir;

// A scenario of one pool (`pool` merged over Llama-3-8B on an H100) and a short generator.
json scenario_json(const json& pool) {
  json p = {{"model", "llama-3-8b"}, {"gpu", "H100-SXM"}};
  if (pool.is_object()) p.update(pool);
  return {{"workloads", {{{"generator", {{"kind", "poisson"}, {"rate", 2}, {"duration_s", 5}}}}}},
          {"fleet", {{"pools", {p}}}}};
}

PoolSpec pool_of(const json& pool) {
  return scenario_from(scenario_json(pool)).pools[0];
}

std::string error_of(const json& pool) {
  try {
    scenario_from(scenario_json(pool));
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(EnginePreset, VllmOnAnH100) {
  const PoolSpec p = pool_of({{"engine", "vllm"}});
  ASSERT_TRUE(p.engine);
  EXPECT_EQ(p.engine->name, "vllm");
  EXPECT_EQ(p.engine->version, "0.19");
  EXPECT_EQ(p.scheduler.policy, "chunked_prefill");
  EXPECT_EQ(p.scheduler.admission, "max_utilization");
  EXPECT_EQ(p.scheduler.preemption, "recompute");
  EXPECT_EQ(p.scheduler.watermark, 0.0);
  EXPECT_EQ(p.scheduler.max_num_batched_tokens, 8192);  // >= 70 GiB and not an A100
  EXPECT_EQ(p.scheduler.max_num_seqs, 1024);
  EXPECT_EQ(p.scheduler.max_model_len, 8192);  // the model's context
  EXPECT_EQ(p.deployment.max_num_batched_tokens, 8192);
  EXPECT_EQ(p.deployment.max_num_seqs, 1024);
  EXPECT_EQ(p.deployment.gpu_memory_utilization, 0.9);
  EXPECT_EQ(p.deployment.memory_fraction, perf::MemoryFraction::device);
  EXPECT_EQ(p.deployment.block_size, 16);
  EXPECT_TRUE(p.prefix_caching);
  EXPECT_EQ(p.engine->defaults.cuda_graph_max_batch, 512);  // min(2 x 1024, 512)
  EXPECT_TRUE(p.engine->defaults.async_scheduling);
  EXPECT_TRUE(p.scheduler.schedule_ahead);  // each step formed while the one before runs
  const perf::RooflineOptions options = step_model_options(p);
  EXPECT_EQ(options.cpu_overhead_base_s, 100e-6);
  EXPECT_EQ(options.cpu_overhead_per_seq_s, 0.25e-6);
  EXPECT_EQ(p.frontend_per_request_s(), 2e-3);
  EXPECT_EQ(p.detokenize_per_token_s(), 5e-6);
}

TEST(EnginePreset, VllmPicksItsSmallerBatchOnA100sAndSmallGpus) {
  for (const char* gpu : {"A100-80GB", "L40S"}) {
    SCOPED_TRACE(gpu);
    const PoolSpec p = pool_of({{"engine", "vllm"}, {"gpu", gpu}});
    EXPECT_EQ(p.scheduler.max_num_batched_tokens, 2048);
    EXPECT_EQ(p.scheduler.max_num_seqs, 256);
  }
  // The sequence limit follows a token budget the pool gives (at most max_num_batched_tokens).
  const PoolSpec p =
      pool_of({{"engine", "vllm"}, {"scheduler", {{"max_num_batched_tokens", 512}}}});
  EXPECT_EQ(p.scheduler.max_num_seqs, 512);
  EXPECT_EQ(p.engine->defaults.cuda_graph_max_batch, 512);
  EXPECT_EQ(p.engine->defaults.sources.at("max_num_batched_tokens"), "given");
}

TEST(EnginePreset, VllmWithoutAsyncSchedulingPaysTheSynchronousOverhead) {
  const PoolSpec p = pool_of({{"engine", {{"name", "vllm"}, {"async_scheduling", false}}}});
  EXPECT_FALSE(p.engine->defaults.async_scheduling);
  EXPECT_FALSE(p.scheduler.schedule_ahead);
  EXPECT_EQ(step_model_options(p).cpu_overhead_base_s, 0.5e-3);
  EXPECT_EQ(step_model_options(p).cpu_overhead_per_seq_s, 19.5e-6);
  // The step-time model carries it: a decode step of 64 sequences grows by the difference.
  const PoolSpec async = pool_of({{"engine", "vllm"}});
  std::vector<perf::SeqWork> batch(64, perf::SeqWork{1, 500, 1});
  const double extra = p.step_model->step_seconds(batch) - async.step_model->step_seconds(batch);
  EXPECT_NEAR(extra, (0.5e-3 - 100e-6) + 64 * (19.5e-6 - 0.25e-6), 1e-9);
}

TEST(EnginePreset, TheSchedulerKeyWinsOverTheEnginesAsyncScheduling) {
  const PoolSpec p = pool_of({{"engine", "trtllm"}, {"scheduler", {{"schedule_ahead", false}}}});
  EXPECT_TRUE(p.engine->defaults.async_scheduling);  // the overhead stays the overlap one
  EXPECT_FALSE(p.scheduler.schedule_ahead);
  EXPECT_TRUE(pool_of({{"engine", "sglang"}}).scheduler.schedule_ahead);
  EXPECT_FALSE(pool_of({}).scheduler.schedule_ahead);  // no engine: tidal's own scheduler
}

TEST(EnginePreset, SglangOnAnH100) {
  const PoolSpec p = pool_of({{"engine", "sglang"}});
  EXPECT_EQ(p.engine->version, "0.5");
  EXPECT_EQ(p.scheduler.policy, "prefill_first");
  EXPECT_EQ(p.scheduler.max_num_batched_tokens, 8192);  // chunked_prefill_size below 160 GiB
  EXPECT_EQ(p.engine->defaults.cuda_graph_max_batch, 256);
  // mem_fraction_static: reserved = 512 + 1.5 x 8192 + 2 x 256 + 128 = 13440 MiB of 81920.
  EXPECT_EQ(p.deployment.gpu_memory_utilization, 0.836);
  EXPECT_EQ(p.deployment.memory_fraction, perf::MemoryFraction::device_static);
  EXPECT_EQ(p.deployment.block_size, 16);  // tidal's (SGLang's page_size is 1)
  // max_running_requests from the KV pool: clamp(kv_tokens / 8192 x 512, 2048, 4096).
  const int64_t kv_tokens = p.kv.num_gpu_blocks * p.deployment.block_size;
  const int64_t expected = std::clamp<int64_t>(kv_tokens * 512 / 8192, 2048, 4096);
  EXPECT_EQ(p.scheduler.max_num_seqs, std::min(expected, kv_tokens / 2));
  EXPECT_EQ(p.deployment.max_num_seqs, p.scheduler.max_num_seqs);
  EXPECT_EQ(p.engine->defaults.max_num_seqs, p.scheduler.max_num_seqs);
  // The KV pool is weights + KV within the share: tidal's activation reserve is not taken.
  const double kv_bytes = 0.836 * p.gpu_spec.memory_bytes - p.memory.weight_bytes_per_gpu;
  EXPECT_EQ(
      p.kv.num_gpu_blocks,
      static_cast<int64_t>(std::floor(kv_bytes / (16 * p.memory.kv_bytes_per_token_per_gpu))));
}

TEST(EnginePreset, SglangTiersFollowGpuMemoryAndTp) {
  const PoolSpec b200 = pool_of({{"engine", "sglang"}, {"gpu", "B200"}});
  EXPECT_EQ(b200.scheduler.max_num_batched_tokens, 16384);
  EXPECT_EQ(b200.engine->defaults.cuda_graph_max_batch, 512);
  const PoolSpec l40s = pool_of({{"engine", "sglang"}, {"gpu", "L40S"}});
  EXPECT_EQ(l40s.scheduler.max_num_batched_tokens, 4096);
  EXPECT_EQ(l40s.engine->defaults.cuda_graph_max_batch, 32);
  const PoolSpec tp4 = pool_of({{"engine", "sglang"}, {"tp", 4}});
  EXPECT_EQ(tp4.engine->defaults.cuda_graph_max_batch, 512);
}

TEST(EnginePreset, TrtllmOnAnH100) {
  const PoolSpec p = pool_of({{"engine", "trtllm"}, {"model", "llama-3.1-8b"}});
  EXPECT_EQ(p.engine->version, "1");
  EXPECT_EQ(p.scheduler.policy, "continuous");  // in-flight batching, no chunked context
  EXPECT_EQ(p.scheduler.admission, "guaranteed_no_evict");
  EXPECT_EQ(p.scheduler.max_num_batched_tokens, 8192);
  EXPECT_EQ(p.scheduler.max_num_seqs, 2048);
  EXPECT_EQ(p.scheduler.max_model_len, 8192);  // prompts fit max_num_tokens without chunking
  EXPECT_EQ(p.deployment.block_size, 32);
  EXPECT_EQ(p.deployment.memory_fraction, perf::MemoryFraction::free);
  EXPECT_EQ(p.engine->defaults.cuda_graph_max_batch, 128);
  // The KV cache takes 0.9 of what the weights and activations leave.
  const double kv_bytes = 0.9 * (p.gpu_spec.memory_bytes - p.memory.weight_bytes_per_gpu -
                                 p.memory.activation_reserve_bytes);
  EXPECT_EQ(
      p.kv.num_gpu_blocks,
      static_cast<int64_t>(std::floor(kv_bytes / (32 * p.memory.kv_bytes_per_token_per_gpu))));
}

// vLLM and TensorRT-LLM run one scheduler per attention data-parallel rank, SGLang divides its
// server's limits among the ranks: a replica of 4 ranks batches 4 times the tier's figures on
// the first two, the tier's on SGLang; a figure the pool gives is the replica's as given.
TEST(EnginePreset, AttentionRanksEachScheduleUnderVllmAndTrtllmLimits) {
  const json layout = {{"model", "mixtral-8x7b"}, {"attention_dp", 4}, {"ep", 4}};
  auto with = [&](const json& more) {
    json pool = layout;
    pool.update(more);
    return pool_of(pool);
  };
  const PoolSpec vllm = with({{"engine", "vllm"}});
  EXPECT_EQ(vllm.scheduler.max_num_batched_tokens, 4 * 8192);
  EXPECT_EQ(vllm.scheduler.max_num_seqs, 4 * 1024);
  EXPECT_NE(vllm.engine->defaults.sources.at("max_num_seqs").find("x attention_dp 4"),
            std::string::npos);
  EXPECT_EQ(vllm.engine->defaults.cuda_graph_max_batch, 512);  // per GPU: min(2 x 1024, 512)
  const PoolSpec trtllm = with({{"engine", "trtllm"}});
  EXPECT_EQ(trtllm.scheduler.max_num_batched_tokens, 4 * 8192);
  EXPECT_EQ(trtllm.scheduler.max_num_seqs, 4 * 2048);
  EXPECT_EQ(trtllm.scheduler.max_model_len, 8192);  // a prompt still fits one rank's budget
  const PoolSpec sglang = with({{"engine", "sglang"}});
  EXPECT_EQ(sglang.scheduler.max_num_batched_tokens, 8192);
  const PoolSpec given =
      with({{"engine", "vllm"},
            {"scheduler", {{"max_num_batched_tokens", 6000}, {"max_num_seqs", 96}}}});
  EXPECT_EQ(given.scheduler.max_num_batched_tokens, 6000);
  EXPECT_EQ(given.scheduler.max_num_seqs, 96);
  // Each GPU holds activations for its rank's share of the budget: 2 ranks of 4,096 tokens
  // each reserve what 4 ranks of 4,096 do.
  auto reserve = [&](int ranks, int budget) {
    return pool_of({{"model", "mixtral-8x7b"},
                    {"attention_dp", ranks},
                    {"ep", ranks},
                    {"scheduler", {{"max_num_batched_tokens", budget}}}})
        .memory.activation_reserve_bytes;
  };
  EXPECT_DOUBLE_EQ(reserve(2, 8192), reserve(4, 16384));
  EXPECT_LT(reserve(4, 8192), reserve(2, 8192));
}

TEST(EnginePreset, EveryPresetNamesASourceForEveryFigure) {
  for (const perf::EnginePreset& preset : perf::engine_presets()) {
    SCOPED_TRACE(preset.label);
    for (const char* key :
         {"policy", "admission", "preemption", "watermark", "max_num_batched_tokens",
          "max_num_seqs", "max_model_len", "prefix_caching", "gpu_memory_utilization",
          "memory_fraction", "cuda_graph_max_batch", "async_scheduling", "step_overhead_async",
          "step_overhead_sync", "frontend_per_request_s", "detokenize_per_token_s",
          "state_memory_ratio"}) {
      ASSERT_TRUE(preset.sources.contains(key)) << key;
      EXPECT_FALSE(preset.sources.at(key).empty()) << key;
    }
    if (preset.block_size > 0) {
      EXPECT_TRUE(preset.sources.contains("block_size"));
    }
    EXPECT_FALSE(preset.tiers.empty());
    EXPECT_EQ(preset.tiers.back().min_gpu_memory_gib, 0.0) << "the last tier takes every GPU";
  }
}

TEST(EnginePreset, KeysThePoolGivesWin) {
  const PoolSpec p = pool_of({{"engine", "vllm"},
                              {"gpu_memory_utilization", 0.8},
                              {"block_size", 32},
                              {"prefix_caching", false},
                              {"scheduler",
                               {{"policy", "continuous"},
                                {"max_num_seqs", 64},
                                {"watermark", 0.02},
                                {"max_model_len", 4096}}}});
  EXPECT_EQ(p.scheduler.policy, "continuous");
  EXPECT_EQ(p.scheduler.max_num_seqs, 64);
  EXPECT_EQ(p.scheduler.watermark, 0.02);
  EXPECT_EQ(p.scheduler.max_model_len, 4096);
  EXPECT_EQ(p.scheduler.max_num_batched_tokens, 8192);  // still the preset's
  EXPECT_EQ(p.scheduler.admission, "max_utilization");
  EXPECT_EQ(p.deployment.gpu_memory_utilization, 0.8);
  EXPECT_EQ(p.deployment.block_size, 32);
  EXPECT_FALSE(p.prefix_caching);
  EXPECT_FALSE(p.kv.enable_prefix_caching);
  EXPECT_EQ(p.engine->defaults.cuda_graph_max_batch, 128);  // from the given 64 sequences
  for (const char* key : {"policy", "max_num_seqs", "watermark", "max_model_len",
                          "gpu_memory_utilization", "block_size", "prefix_caching"}) {
    EXPECT_EQ(p.engine->defaults.sources.at(key), "given") << key;
  }
  EXPECT_NE(p.engine->defaults.sources.at("max_num_batched_tokens"), "given");
  // The engine object's own keys win over the preset's overheads.
  const PoolSpec q = pool_of({{"engine",
                               {{"name", "sglang"},
                                {"step_overhead_base_s", 1e-3},
                                {"frontend_per_request_s", 0.01},
                                {"detokenize_per_token_s", 0}}}});
  EXPECT_EQ(step_model_options(q).cpu_overhead_base_s, 1e-3);
  EXPECT_EQ(step_model_options(q).cpu_overhead_per_seq_s, 0.1e-6);  // the preset's
  EXPECT_EQ(q.frontend_per_request_s(), 0.01);
  EXPECT_EQ(q.detokenize_per_token_s(), 0.0);
  // An SGLang pool giving its sequence limit keeps it (no KV-pool rule).
  const PoolSpec r = pool_of({{"engine", "sglang"}, {"scheduler", {{"max_num_seqs", 100}}}});
  EXPECT_EQ(r.scheduler.max_num_seqs, 100);
}

TEST(EnginePreset, VersionsMatchTheirReleaseLine) {
  EXPECT_EQ(pool_of({{"engine", {{"name", "vllm"}, {"version", "0.19.1"}}}}).engine->version,
            "0.19");
  EXPECT_EQ(pool_of({{"engine", {{"name", "VLLM"}, {"version", "0.19"}}}}).engine->name, "vllm");
  EXPECT_EQ(pool_of({{"engine", {{"name", "trtllm"}, {"version", "1.2.0rc6"}}}}).engine->version,
            "1");
  EXPECT_EQ(pool_of({{"engine", {{"name", "sglang"}}}}).engine->version, "0.5");
}

TEST(EnginePreset, ErrorsNameTheJsonPath) {
  EXPECT_EQ(error_of({{"engine", "tgi"}}),
            "scenario.json: fleet.pools[0].engine: unknown engine \"tgi\" (known: vllm, sglang, "
            "trtllm)");
  EXPECT_EQ(error_of({{"engine", {{"name", "tgi"}}}}),
            "scenario.json: fleet.pools[0].engine.name: unknown engine \"tgi\" (known: vllm, "
            "sglang, trtllm)");
  EXPECT_EQ(error_of({{"engine", {{"name", "vllm"}, {"version", "0.5"}}}}),
            "scenario.json: fleet.pools[0].engine.version: unknown vllm version \"0.5\" (known: "
            "0.19)");
  EXPECT_EQ(error_of({{"engine", {{"name", "vllm"}, {"version", "0.190"}}}}),
            "scenario.json: fleet.pools[0].engine.version: unknown vllm version \"0.190\" (known: "
            "0.19)");
  const std::string missing = error_of({{"engine", {{"version", "0.19"}}}});
  EXPECT_EQ(missing, "scenario.json: fleet.pools[0].engine.name: missing (required)");
  const std::string unknown_key = error_of({{"engine", {{"name", "vllm"}, {"chunk", 1}}}});
  EXPECT_EQ(unknown_key.rfind("scenario.json: fleet.pools[0].engine.chunk: unknown key", 0), 0u)
      << unknown_key;
  const std::string negative =
      error_of({{"engine", {{"name", "vllm"}, {"frontend_per_request_s", -1}}}});
  EXPECT_EQ(negative.rfind("scenario.json: fleet.pools[0].engine.frontend_per_request_s", 0), 0u)
      << negative;
  const std::string wrong_type = error_of({{"engine", 3}});
  EXPECT_EQ(wrong_type.rfind("scenario.json: fleet.pools[0].engine: expected an engine name", 0),
            0u)
      << wrong_type;
  // The preset's defaults pass the scheduler's own validation; the pool's keys still must.
  const std::string swap =
      error_of({{"engine", "sglang"}, {"scheduler", {{"preemption", "swap"}}}});
  EXPECT_EQ(swap,
            "scenario.json: fleet.pools[0].scheduler.preemption: swap is not supported by the "
            "prefill_first policy (use recompute)");
}

TEST(EnginePreset, EchoLoadsAgainAndSummaryListsEachDefaultWithItsSource) {
  const Scenario s = scenario_from(
      scenario_json({{"engine", {{"name", "sglang"}, {"version", "0.5.9"}}}, {"tp", 2}}));
  const std::string echo = scenario_to_json(s).dump();
  const json pool = json::parse(echo)["fleet"]["pools"][0];
  EXPECT_EQ(pool["engine"], json({{"name", "sglang"},
                                  {"version", "0.5"},
                                  {"async_scheduling", true},
                                  {"step_overhead_base_s", 50e-6},
                                  {"step_overhead_per_seq_s", 0.1e-6},
                                  {"frontend_per_request_s", 2e-3},
                                  {"detokenize_per_token_s", 5e-6}}));
  EXPECT_EQ(pool["scheduler"]["policy"], "prefill_first");
  const Scenario again = load_scenario_text(echo, "scenario.json", "");
  EXPECT_EQ(scenario_to_json(again).dump(), echo);
  EXPECT_EQ(again.pools[0].kv.num_gpu_blocks, s.pools[0].kv.num_gpu_blocks);

  RunResult result = run_scenario(s);
  const RunMetrics metrics = compute_metrics(s, result);
  const json summary = json::parse(summary_json(s, result, metrics).dump());
  const json engine = summary["resolved"]["pools"][0]["engine"];
  EXPECT_EQ(engine["name"], "sglang");
  EXPECT_EQ(engine["version"], "0.5");
  const json defaults = engine["defaults"];
  EXPECT_EQ(defaults["policy"]["value"], "prefill_first");
  EXPECT_NE(defaults["policy"]["source"].get<std::string>().find("enable_mixed_chunk"),
            std::string::npos);
  EXPECT_EQ(defaults["max_num_seqs"]["value"], s.pools[0].scheduler.max_num_seqs);
  EXPECT_EQ(defaults["memory_fraction"]["value"], "device_static");
  EXPECT_EQ(defaults["gpu_memory_utilization"]["value"],
            s.pools[0].deployment.gpu_memory_utilization);
  EXPECT_NE(defaults["step_overhead_base_s"]["source"].get<std::string>().find("estimate"),
            std::string::npos);
  for (const auto& [key, value] : defaults.items()) {
    EXPECT_TRUE(value.contains("value")) << key;
    EXPECT_FALSE(value["source"].get<std::string>().empty()) << key;
  }
  // Reloaded from the echo every key is the pool's own: same values, sources "given".
  EXPECT_EQ(again.pools[0].engine->defaults.sources.at("max_num_seqs"), "given");
  EXPECT_EQ(again.pools[0].scheduler.max_num_seqs, s.pools[0].scheduler.max_num_seqs);
}

// A tiny Qwen3.5-style hybrid written inline: 8 layers, 6 of them Gated DeltaNet (107,520 bytes
// of recurrent state per sequence at tp 1).
json tiny_hybrid_model() {
  return {{"_name_or_path", "tiny-hybrid"},
          {"model_type", "qwen3_5_text"},
          {"hidden_size", 256},
          {"num_hidden_layers", 8},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 2},
          {"head_dim", 64},
          {"intermediate_size", 512},
          {"vocab_size", 1000},
          {"max_position_embeddings", 4096},
          {"linear_num_key_heads", 2},
          {"linear_num_value_heads", 4},
          {"linear_key_head_dim", 32},
          {"linear_value_head_dim", 32},
          {"linear_conv_kernel_dim", 4}};
}

// SGLang splits the cache memory between states and KV and runs at most the states that fit;
// the other engines reserve the states of max_num_seqs sequences.
TEST(EnginePreset, LinearAttentionModelsRunAtMostTheStatesTheMemoryHolds) {
  const json sglang = {{"model", tiny_hybrid_model()},
                       {"engine", {{"name", "sglang"}, {"state_memory_ratio", 1e-4}}}};
  const Scenario s = scenario_from(scenario_json(sglang));
  const PoolSpec& p = s.pools[0];
  const double per_seq = 107520.0;
  const auto slots =
      static_cast<int64_t>(p.memory.kv_cache_bytes_per_gpu * 1e-4 / (1 + 1e-4) / per_seq);
  ASSERT_GT(slots, 0);
  EXPECT_EQ(p.memory.num_state_slots, slots);
  EXPECT_EQ(p.scheduler.max_num_seqs, slots);
  EXPECT_EQ(p.engine->defaults.max_num_seqs, slots);
  EXPECT_NE(p.engine->defaults.sources.at("max_num_seqs").find("capped at the recurrent states"),
            std::string::npos);
  EXPECT_EQ(p.engine->defaults.sources.at("state_memory_ratio"), "given");
  EXPECT_DOUBLE_EQ(p.memory.state_reserve_bytes, static_cast<double>(slots) * per_seq);
  // The echo loads again to the same pool.
  const std::string echo = scenario_to_json(s).dump();
  const Scenario again = load_scenario_text(echo, "scenario.json", "");
  EXPECT_EQ(scenario_to_json(again).dump(), echo);
  EXPECT_EQ(again.pools[0].kv.num_gpu_blocks, p.kv.num_gpu_blocks);
  EXPECT_EQ(again.pools[0].memory.num_state_slots, slots);
  RunResult result = run_scenario(s);
  const RunMetrics metrics = compute_metrics(s, result);
  const json summary = json::parse(summary_json(s, result, metrics).dump());
  const json pool = summary["resolved"]["pools"][0];
  EXPECT_EQ(pool["num_recurrent_state_slots"], slots);
  EXPECT_EQ(pool["engine"]["defaults"]["state_memory_ratio"]["value"], 1e-4);

  const PoolSpec preset = pool_of({{"model", tiny_hybrid_model()}, {"engine", "sglang"}});
  EXPECT_EQ(preset.engine->defaults.state_memory_ratio, 0.9);
  const PoolSpec vllm = pool_of({{"model", tiny_hybrid_model()}, {"engine", "vllm"}});
  EXPECT_EQ(vllm.memory.num_state_slots, vllm.scheduler.max_num_seqs);
  EXPECT_DOUBLE_EQ(vllm.memory.state_reserve_bytes, vllm.scheduler.max_num_seqs * per_seq);
  EXPECT_EQ(vllm.engine->defaults.state_memory_ratio, 0.0);
  // Other models neither state nor echo a ratio.
  EXPECT_FALSE(pool_of({{"engine", "sglang"}}).engine->defaults.state_memory_ratio);
}

// One request alone on one replica: TTFT grows by the front end (and the first token's
// detokenization), the finish by the same, the time between tokens not at all.
TEST(EnginePreset, FrontEndTimeEntersTtftExactly) {
  TempDir dir("engine_frontend");
  const std::string trace = dir.write_trace("one.jsonl", {make_request(0, 0.5, 300, 20)});
  auto run = [&](double frontend_s, double detokenize_s) {
    json j = scenario_json({{"engine",
                             {{"name", "vllm"},
                              {"frontend_per_request_s", frontend_s},
                              {"detokenize_per_token_s", detokenize_s}}}});
    j["workloads"] = json::array({{{"trace", {{"path", trace}}}}});
    const Scenario s = scenario_from(j, dir.path().string());
    RunResult result = run_scenario(s);
    EXPECT_EQ(result.records[0].status, RequestStatus::finished);
    return result.records[0];
  };
  const RequestRecord bare = run(0.0, 0.0);
  const RequestRecord fe = run(0.004, 0.0);
  const RequestRecord both = run(0.004, 5e-6);
  EXPECT_EQ(fe.arrival_ns, bare.arrival_ns);
  EXPECT_EQ(fe.first_scheduled_ns - bare.first_scheduled_ns, 4'000'000);
  EXPECT_EQ((fe.first_token_ns - fe.arrival_ns) - (bare.first_token_ns - bare.arrival_ns),
            4'000'000);
  EXPECT_EQ(fe.finish_ns - bare.finish_ns, 4'000'000);
  EXPECT_EQ(both.first_token_ns - fe.first_token_ns, 5'000);  // one token detokenized
  EXPECT_EQ(both.finish_ns - fe.finish_ns, 5'000);
  EXPECT_EQ(both.finish_ns - both.first_token_ns, bare.finish_ns - bare.first_token_ns);
  EXPECT_EQ(both.max_itl_ns, bare.max_itl_ns);
}

// Requests sent together pass a replica's front end one at a time: on one replica the k-th of
// three reaches the scheduler k front-end times after the burst (each step ends well before the
// next request reaches it); two replicas each have their own front end.
TEST(EnginePreset, OneFrontEndPerReplicaTakesRequestsOneAtATime) {
  TempDir dir("engine_frontend_queue");
  const std::string trace = dir.write_trace(
      "burst.jsonl",
      {make_request(0, 0.5, 300, 1), make_request(1, 0.5, 300, 1), make_request(2, 0.5, 300, 1)});
  auto run = [&](int num_replicas) {
    json j = scenario_json({{"num_replicas", num_replicas},
                            {"engine", {{"name", "vllm"}, {"frontend_per_request_s", 0.05}}}});
    j["workloads"] = json::array({{{"trace", {{"path", trace}}}}});
    RunResult result = run_scenario(scenario_from(j, dir.path().string()));
    std::vector<int64_t> scheduled;  // [3] first step of each request
    std::vector<int32_t> replicas;   // [3]
    for (const RequestRecord& rec : result.records) {
      EXPECT_EQ(rec.status, RequestStatus::finished);
      EXPECT_LT(rec.finish_ns, rec.first_scheduled_ns + 50'000'000);  // done before the next
      scheduled.push_back(rec.first_scheduled_ns);
      replicas.push_back(rec.replica);
    }
    return std::make_pair(scheduled, replicas);
  };
  const auto [one, one_replicas] = run(1);
  EXPECT_EQ(one, (std::vector<int64_t>{550'000'000, 600'000'000, 650'000'000}));
  const auto [two, two_replicas] = run(2);
  for (int k = 0; k < 3; ++k) {
    int num_before = 0;  // requests before it on its replica
    for (int j = 0; j < k; ++j) num_before += two_replicas[j] == two_replicas[k];
    EXPECT_EQ(two[k], 550'000'000 + 50'000'000 * num_before) << "request " << k;
  }
  EXPECT_NE(two_replicas[0], two_replicas[1]);
}

TEST(EnginePreset, SglangPoolsRunThePrefillFirstPolicyToTheEnd) {
  json j = scenario_json({{"engine", "sglang"}, {"num_replicas", 2}});
  j["workloads"][0]["generator"]["rate"] = 20;
  const Scenario s = scenario_from(j);
  RunResult result = run_scenario(s);
  ASSERT_GT(result.records.size(), 50u);
  for (const RequestRecord& r : result.records) {
    EXPECT_EQ(r.status, RequestStatus::finished);
    EXPECT_GT(r.first_token_ns, r.arrival_ns);
  }
}

TEST(EnginePreset, WithoutTheKeyNothingChanges) {
  const json plain = scenario_json(json::object());
  const Scenario s = scenario_from(plain);
  const PoolSpec& p = s.pools[0];
  EXPECT_FALSE(p.engine);
  EXPECT_EQ(p.deployment.memory_fraction, perf::MemoryFraction::device);
  EXPECT_EQ(p.frontend_per_request_s(), 0.0);
  EXPECT_EQ(p.detokenize_per_token_s(), 0.0);
  const perf::RooflineOptions defaults;
  EXPECT_EQ(step_model_options(p).cpu_overhead_base_s, defaults.cpu_overhead_base_s);
  EXPECT_EQ(step_model_options(p).cpu_overhead_per_seq_s, defaults.cpu_overhead_per_seq_s);
  EXPECT_FALSE(json::parse(scenario_to_json(s).dump())["fleet"]["pools"][0].contains("engine"));
  RunResult result = run_scenario(s);
  const RunMetrics metrics = compute_metrics(s, result);
  const json summary = json::parse(summary_json(s, result, metrics).dump());
  EXPECT_FALSE(summary["resolved"]["pools"][0].contains("engine"));
  // An explicit null is the same as leaving the key out, output for output.
  json with_null = plain;
  with_null["fleet"]["pools"][0]["engine"] = nullptr;
  const Scenario n = scenario_from(with_null);
  RunResult result_null = run_scenario(n);
  const RunMetrics metrics_null = compute_metrics(n, result_null);
  EXPECT_EQ(summary_json(n, result_null, metrics_null).dump(),
            summary_json(s, result, metrics).dump());
}

// perf::plan_memory's three readings of the memory fraction.
TEST(EnginePreset, MemoryFractionsPlanTheKvPoolAsEachEngineDoes) {
  const perf::ModelSpec& model = perf::find_model("llama-3-8b", "m");
  const perf::GpuSpec& gpu = perf::find_gpu("H100-SXM", "g");
  perf::Deployment d;
  d.gpu_memory_utilization = 0.85;
  const perf::MemoryPlan device = perf::plan_memory(model, gpu, d, "p");
  d.memory_fraction = perf::MemoryFraction::device_static;
  const perf::MemoryPlan device_static = perf::plan_memory(model, gpu, d, "p");
  d.memory_fraction = perf::MemoryFraction::free;
  const perf::MemoryPlan free = perf::plan_memory(model, gpu, d, "p");
  const double weights = device.weight_bytes_per_gpu;
  const double reserve = device.activation_reserve_bytes;
  EXPECT_EQ(device.kv_cache_bytes_per_gpu, 0.85 * gpu.memory_bytes - weights - reserve);
  EXPECT_EQ(device_static.kv_cache_bytes_per_gpu, 0.85 * gpu.memory_bytes - weights);
  EXPECT_EQ(free.kv_cache_bytes_per_gpu, 0.85 * (gpu.memory_bytes - weights - reserve));
  EXPECT_EQ(perf::memory_fraction_name(perf::MemoryFraction::free), "free");
}

}  // namespace
}  // namespace tidal::sim
