#include "sim/scenario.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "base/input_error.h"
#include "perf/profile.h"
#include "perf/vidur_import.h"
#include "tests/scratch_folder.h"

namespace tidal::sim {
namespace {

// A minimal valid scenario with `pool_extra` spliced into the pool and `root_extra` into the
// root object.
std::string scenario_text(const std::string& pool_extra = "", const std::string& root_extra = "") {
  return R"({"workloads": [{"generator": {"kind": "poisson", "rate": 2, "duration_s": 10}}],
             "fleet": {"pools": [{"model": "llama-3-8b", "gpu": "H100-SXM")" +
         pool_extra + "}]}" + root_extra + "}";
}

Scenario load(const std::string& text) {
  return load_scenario_text(text, "scenario.json", "");
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

std::string error_of(const std::string& text) {
  try {
    load(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Scenario, DefaultsAreResolved) {
  const Scenario s = load(scenario_text());
  EXPECT_EQ(s.name, "scenario");
  EXPECT_EQ(s.seed, 0u);
  EXPECT_FALSE(s.duration_s);
  EXPECT_EQ(s.timeline_interval_s, 1.0);
  ASSERT_EQ(s.workloads.size(), 1u);
  EXPECT_EQ(s.workloads[0].name, "workload0");
  EXPECT_EQ(s.workloads[0].slo_class, "default");
  EXPECT_FALSE(s.workloads[0].tenant);
  ASSERT_EQ(s.pools.size(), 1u);
  const PoolSpec& p = s.pools[0];
  EXPECT_EQ(p.name, "pool0");
  EXPECT_EQ(p.model, "llama-3-8b");
  EXPECT_EQ(p.gpu, "H100-SXM");
  EXPECT_EQ(p.deployment.tp, 1);
  EXPECT_EQ(p.num_replicas, 1);
  EXPECT_EQ(p.deployment.block_size, 16);
  EXPECT_TRUE(p.prefix_caching);
  EXPECT_EQ(p.scheduler.policy, "continuous");
  EXPECT_EQ(p.scheduler.max_model_len, 8192);
  EXPECT_GT(p.kv.num_gpu_blocks, 1000);
  EXPECT_GT(p.kv.num_cpu_blocks, 0);
  EXPECT_EQ(p.resolved_price_per_gpu_hour, 4.25);  // catalog on-demand price
  ASSERT_NE(p.step_model, nullptr);
  EXPECT_EQ(s.router.policy, "least_outstanding_requests");
  EXPECT_EQ(s.output.trace_max_slices, 20000);
  ASSERT_EQ(s.slo_classes.size(), 1u);
  EXPECT_EQ(s.slo_classes[0].name, "default");
}

TEST(Scenario, MaxModelLenDefaultsToTheModelsContext) {
  const Scenario s = load(R"({"workloads": [{"generator": {"kind": "poisson", "rate": 1,
      "duration_s": 5}}], "fleet": {"pools": [{"model": "llama-2-7b", "gpu": "A100-80GB"}]}})");
  EXPECT_EQ(s.pools[0].scheduler.max_model_len, 4096);
}

TEST(Scenario, EchoIsAValidScenarioThatEchoesItself) {
  const Scenario s = load(scenario_text(R"(, "tp": 2, "price_per_gpu_hour": 3.5,
      "scheduler": {"policy": "chunked_prefill", "max_num_batched_tokens": 2048})",
                                        R"(, "seed": 9, "duration_s": 5, "name": "x")"));
  const std::string echo = scenario_to_json(s).dump();
  const Scenario again = load(echo);
  EXPECT_EQ(scenario_to_json(again).dump(), echo);
  EXPECT_EQ(again.pools[0].deployment.tp, 2);
  EXPECT_EQ(again.pools[0].resolved_price_per_gpu_hour, 3.5);
  EXPECT_EQ(again.seed, 9u);
}

TEST(Scenario, SeedsDeriveFromTheScenarioSeed) {
  Scenario s = load(scenario_text("", R"(, "seed": 1)"));
  const uint64_t first = s.workloads[0].seed;
  EXPECT_EQ(first, workload_seed(1, 0));
  s.set_seed(2);
  EXPECT_NE(s.workloads[0].seed, first);
  EXPECT_EQ(s.workloads[0].seed, workload_seed(2, 0));
}

TEST(Scenario, RelativeTracePathsResolveAgainstTheScenarioFolder) {
  const ScratchFolder scratch("tidal_scenario_test", "paths");
  const std::filesystem::path& dir = scratch.path();
  const std::filesystem::path file = dir / "s.json";
  std::ofstream(file) << R"({"workloads": [{"trace": {"path": "data/t.jsonl", "format": "jsonl"}},
      {"trace": {"path": "/abs/t.csv"}}],
      "fleet": {"pools": [{"model": "llama-3-8b", "gpu": "h100"}]}})";
  const Scenario s = load_scenario_file(file.string());
  EXPECT_EQ(s.name, "s");
  EXPECT_EQ(s.workloads[0].trace->resolved_path, (dir / "data/t.jsonl").string());
  EXPECT_EQ(s.workloads[0].trace->path, "data/t.jsonl");
  EXPECT_EQ(s.workloads[1].trace->resolved_path, "/abs/t.csv");
}

TEST(Scenario, SloClassesGatherAcrossWorkloads) {
  const Scenario s = load(R"({"workloads": [
      {"generator": {"kind": "poisson", "rate": 1, "duration_s": 5}, "slo_class": "web"},
      {"generator": {"kind": "poisson", "rate": 1, "duration_s": 5}, "slo_class": "web",
       "slo": {"ttft_s": 0.5}},
      {"generator": {"kind": "poisson", "rate": 1, "duration_s": 5}, "slo_class": "api",
       "slo": {"e2e_s": 10, "tpot_s": 0.05}}],
      "fleet": {"pools": [{"model": "llama-3-8b", "gpu": "H100-SXM"}]}})");
  ASSERT_EQ(s.slo_classes.size(), 2u);
  EXPECT_EQ(s.slo_classes[0].name, "api");
  EXPECT_EQ(*s.slo_classes[0].slo.e2e_s, 10.0);
  EXPECT_EQ(s.slo_classes[1].name, "web");
  EXPECT_EQ(*s.slo_classes[1].slo.ttft_s, 0.5);
  EXPECT_FALSE(s.slo_classes[1].slo.e2e_s);
}

TEST(Scenario, ProfiledStepModelFromAVidurImport) {
  const ScratchFolder scratch("tidal_scenario_test", "profile");
  const std::filesystem::path& dir = scratch.path();
  perf::save_profile(
      perf::import_vidur(TIDAL_SHARED_DIR "/profiles/vidur", "h100", "Llama-2-7b-hf", 1),
      (dir / "llama2-7b-h100-tp1.json").string());
  auto text = [](int tp) {
    return R"({"workloads": [{"generator": {"kind": "poisson"}}], "fleet": {"pools": [
        {"model": "llama-2-7b", "gpu": "H100-SXM", "tp": )" +
           std::to_string(tp) +
           R"(, "perf": {"kind": "profile", "profile": "llama2-7b-h100-tp1.json"}}]}})";
  };
  const Scenario s = load_scenario_text(text(1), "scenario.json", dir.string());
  EXPECT_EQ(s.pools[0].perf.resolved_profile, (dir / "llama2-7b-h100-tp1.json").string());
  const perf::SeqWork decode[] = {{1, 1000}};
  EXPECT_GT(s.pools[0].step_model->step_seconds(decode), 0.0);
  try {
    load_scenario_text(text(2), "scenario.json", dir.string());
    ADD_FAILURE() << "a TP 1 profile for a TP 2 pool must be refused";
  } catch (const InputError& e) {
    EXPECT_PRED2(starts_with, std::string(e.what()), "scenario.json: fleet.pools[0].perf.profile");
  }
}

TEST(ScenarioErrors, TpNotDividingHeads) {
  EXPECT_EQ(error_of(scenario_text(R"(, "tp": 3)")),
            "scenario.json: fleet.pools[0].tp: 3 does not divide num_heads 32 of llama-3-8b");
}

TEST(ScenarioErrors, ZeroReplicas) {
  EXPECT_EQ(error_of(scenario_text(R"(, "num_replicas": 0)")),
            "scenario.json: fleet.pools[0].num_replicas: must be at least 1 with a fixed-size pool "
            "(no autoscaler)");
}

TEST(ScenarioErrors, WrongType) {
  EXPECT_EQ(error_of(scenario_text(R"(, "tp": "2")")),
            "scenario.json: fleet.pools[0].tp: expected an integer, got a string \"2\"");
  EXPECT_EQ(error_of(scenario_text(R"(, "prefix_caching": 1)")),
            "scenario.json: fleet.pools[0].prefix_caching: expected true or false, got an "
            "integer 1");
}

TEST(ScenarioErrors, UnknownKeys) {
  EXPECT_EQ(error_of(scenario_text("", R"(, "sed": 1)")),
            "scenario.json: sed: unknown key (known keys: name, seed, duration_s, "
            "timeline_interval_s, workloads, fleet, router, output, metrics, network, "
            "kv_transfer, priorities, energy, model_router)");
  EXPECT_PRED2(starts_with, error_of(scenario_text(R"(, "replicas": 2)")),
               "scenario.json: fleet.pools[0].replicas: unknown key (kn");
  EXPECT_PRED2(starts_with, error_of(scenario_text(R"(, "scheduler": {"polcy": "static"})")),
               "scenario.json: fleet.pools[0].scheduler.polcy: unknown key (know");
}

TEST(ScenarioErrors, TierHitWeightIsACacheAwareKnobInZeroOne) {
  EXPECT_EQ(
      error_of(scenario_text("", R"(, "router": {"policy": "random", "tier_hit_weight": 0.5})")),
      "scenario.json: router.tier_hit_weight: not a knob of router \"random\"");
  EXPECT_EQ(
      error_of(scenario_text("", R"(, "router": {"policy": "cache_aware", "tier_hit_weight": 2})")),
      "scenario.json: router.tier_hit_weight: must be in [0, 1], got 2");
}

TEST(ScenarioErrors, UnknownNames) {
  EXPECT_EQ(error_of(scenario_text("", R"(, "router": {"policy": "rando"})")),
            "scenario.json: router.policy: unknown router \"rando\" (known: round_robin, "
            "least_outstanding_requests, random, least_outstanding_tokens, power_of_two, "
            "session_affinity, prefix_aware, cache_aware, lora_affinity)");
  EXPECT_EQ(error_of(scenario_text(R"(, "scheduler": {"policy": "fifo"})")),
            "scenario.json: fleet.pools[0].scheduler.policy: unknown batching policy 'fifo' "
            "(known: static, continuous, chunked_prefill, prefill_first)");
  const std::string gpu = error_of(R"({"workloads": [{"generator": {"kind": "poisson", "rate": 1,
      "duration_s": 5}}], "fleet": {"pools": [{"model": "llama-3-8b", "gpu": "H900"}]}})");
  EXPECT_PRED2(starts_with, gpu, "scenario.json: fleet.pools[0].gpu: unknown GPU \"H900\"");
  const std::string model = error_of(R"({"workloads": [{"generator": {"kind": "poisson",
      "rate": 1, "duration_s": 5}}], "fleet": {"pools": [{"model": "gpt-5", "gpu": "H100-SXM"}]}})");
  EXPECT_PRED2(starts_with, model, "scenario.json: fleet.pools[0].model: unknown model \"gpt-5\"");
}

TEST(ScenarioErrors, ModelDoesNotFit) {
  const std::string e = error_of(R"({"workloads": [{"generator": {"kind": "poisson", "rate": 1,
      "duration_s": 5}}], "fleet": {"pools": [{"model": "llama-2-70b", "gpu": "RTX-4090"}]}})");
  EXPECT_PRED2(starts_with, e,
               "scenario.json: fleet.pools[0]: llama-2-70b does not fit on RTX-4090");
}

TEST(ScenarioErrors, WorkloadShape) {
  EXPECT_EQ(error_of(R"({"workloads": [{"tenant": "a"}], "fleet": {"pools": []}})"),
            "scenario.json: workloads[0]: needs exactly one of \"trace\" or \"generator\"");
  EXPECT_EQ(error_of(R"({"workloads": [], "fleet": {}})"),
            "scenario.json: workloads: must be a non-empty array of workloads");
  EXPECT_EQ(
      error_of(R"({"workloads": [{"generator": {"kind": "poisson"}, "slo": {"ttft_s": -1}}]})"),
      "scenario.json: workloads[0].slo.ttft_s: must be > 0, got -1");
  EXPECT_EQ(error_of(R"({"workloads": [{"generator": {"kind": "poisson"}}]})"),
            "scenario.json: fleet: missing (required)");
  EXPECT_PRED2(starts_with,
               error_of(R"({"workloads": [{"trace": {"path": "t.csv", "format": "xls"}}]})"),
               "scenario.json: workloads[0].trace.format: unknown tra");
}

TEST(ScenarioErrors, ConflictingSloForOneClass) {
  EXPECT_EQ(error_of(R"({"workloads": [
      {"generator": {"kind": "poisson"}, "slo_class": "web", "slo": {"ttft_s": 1}},
      {"generator": {"kind": "poisson"}, "slo_class": "web", "slo": {"ttft_s": 2}}]})"),
            "scenario.json: workloads[1].slo: differs from the slo of slo_class \"web\" given in "
            "workloads[0]");
}

TEST(ScenarioErrors, SchedulerLimitsAgainstTheModel) {
  EXPECT_EQ(error_of(scenario_text(R"(, "scheduler": {"max_model_len": 16384,
      "max_num_batched_tokens": 16384})")),
            "scenario.json: fleet.pools[0].scheduler.max_model_len: 16384 exceeds max_position "
            "8192 of llama-3-8b");
  EXPECT_EQ(error_of(scenario_text(R"(, "scheduler": {"max_num_batched_tokens": 0})")),
            "scenario.json: fleet.pools[0].scheduler.max_num_batched_tokens: must be at least 1 "
            "(got 0)");
}

TEST(ScenarioErrors, JsonSyntax) {
  EXPECT_PRED2(starts_with, error_of("{\"workloads\": [}"),
               "scenario.json: parse error at line 1, column 16: syn");
}

TEST(ScenarioErrors, PerfKeys) {
  EXPECT_EQ(error_of(scenario_text(R"(, "perf": {"kind": "measured"})")),
            "scenario.json: fleet.pools[0].perf.kind: unknown step-time model \"measured\" "
            "(known: roofline, profile, kernel_db)");
  EXPECT_EQ(error_of(scenario_text(R"(, "perf": {"profile": "p.json"})")),
            "scenario.json: fleet.pools[0].perf.profile: only allowed with \"kind\": "
            "\"profile\"");
  EXPECT_EQ(error_of(scenario_text(R"(, "perf": {"kind": "profile"})")),
            "scenario.json: fleet.pools[0].perf.profile: missing (required)");
  EXPECT_EQ(error_of(scenario_text(R"(, "perf": {"dir": "tables"})")),
            "scenario.json: fleet.pools[0].perf.dir: only allowed with \"kind\": "
            "\"kernel_db\"");
  EXPECT_EQ(error_of(scenario_text(R"(, "perf": {"kind": "kernel_db", "dir": "tables"})")),
            "scenario.json: fleet.pools[0].perf: kind kernel_db prices the kernels of an engine: "
            "give the pool's \"engine\"");
  EXPECT_NE(error_of(scenario_text(R"(, "engine": "vllm", "perf": {"kind": "kernel_db",
                                        "dir": "/nonexistent/tables"})"))
                .find("/nonexistent/tables"),
            std::string::npos);
  EXPECT_EQ(error_of(scenario_text(R"(, "perf": {"moe_dtype": "nvfp4"})")),
            "scenario.json: fleet.pools[0].perf.moe_dtype: only allowed with \"kind\": "
            "\"kernel_db\"");
  EXPECT_EQ(error_of(scenario_text(R"(, "perf": {"calibration": "c.json"})")),
            "scenario.json: fleet.pools[0].perf.calibration: calibrations are fitted per engine "
            "and GPU: give the pool's \"engine\"");
  EXPECT_NE(error_of(scenario_text(R"(, "engine": "vllm", "perf": {"calibration": "/no/c.json"})"))
                .find("/no/c.json: cannot read calibration file"),
            std::string::npos);
}

TEST(ScenarioErrors, MissingFile) {
  EXPECT_THROW(load_scenario_file("/nonexistent/dir/s.json"), InputError);
}

}  // namespace
}  // namespace tidal::sim
