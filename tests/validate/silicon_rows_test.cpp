// Measured rows as closed-loop scenarios: clients in lockstep (as they start) or staggered.
#include "validate/silicon_rows.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/input_error.h"
#include "tests/scratch_folder.h"
#include "validate/served_kv_dtype.h"

namespace tidal::validate {
namespace {

namespace fs = std::filesystem;

const std::string kScratch = "tidal_silicon_rows";

// A 1B-class Llama written as a Hugging Face config into `dir`, named as measured.csv's rows name
// models; returns `dir`.
std::string write_config(const fs::path& dir) {
  std::ofstream(dir / "test--small-llama_config.json") << R"({"model_type": "llama",
      "hidden_size": 2048, "num_hidden_layers": 16, "num_attention_heads": 32,
      "num_key_value_heads": 8, "intermediate_size": 8192, "vocab_size": 32000,
      "max_position_embeddings": 8192, "rms_norm_eps": 1e-5})";
  return dir.string();
}

// An aggregated vLLM row of the small Llama on H100.
MeasuredRun small_llama_row(int64_t isl, int64_t osl, int64_t concurrency) {
  MeasuredRun run;
  run.id = "row";
  run.where = "rows.csv:2";
  run.engine = "vllm";
  run.model = "test/small-llama";
  run.system = "h100_sxm";
  run.mode = "agg";
  run.isl = isl;
  run.osl = osl;
  run.concurrency = concurrency;
  run.ttft_ms = run.tpot_ms = 1.0;
  return run;
}

RowPrediction predict(int64_t concurrency, bool stagger) {
  const ScratchFolder configs(kScratch, "predict");
  SiliconOptions options;
  options.configs_dir = write_config(configs.path());
  options.requests_per_client = 6;
  options.stagger_clients = stagger;
  const MeasuredRun run = small_llama_row(2048, 64, concurrency);
  std::string reason;
  const std::optional<PreparedRow> row = prepare_row(run, options, &reason);
  EXPECT_TRUE(row) << reason;
  return row ? predict_row(*row, nullptr) : RowPrediction{};
}

// A disaggregated row's sides batch as many requests per attention rank as the row says (the
// engine configs AIConfigurator generates); a side that does not say keeps its engine's default.
TEST(SiliconRows, DisaggregatedSidesBatchWhatTheRowSays) {
  const ScratchFolder scratch(kScratch, "disaggregated");
  SiliconOptions options;
  options.configs_dir = write_config(scratch.path());
  options.engine_presets = true;
  std::ofstream(fs::path(options.configs_dir) / "test--small-moe_config.json")
      << R"({"model_type": "mixtral", "hidden_size": 2048, "num_hidden_layers": 16,
      "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 4096,
      "num_local_experts": 8, "num_experts_per_tok": 2, "vocab_size": 32000,
      "max_position_embeddings": 8192, "rms_norm_eps": 1e-5})";
  MeasuredRun run = small_llama_row(1024, 64, 16);
  run.model = "test/small-moe";
  run.mode = "disagg";
  run.prefill = WorkerLayout{2, 1, 1, 4, 1, 4, 1};  // tp 1 x attention_dp 4, ep 4: batch 1
  run.decode = WorkerLayout{2, 2, 1, 1, 2, 1, 8};
  std::string reason;
  const std::optional<PreparedRow> row = prepare_row(run, options, &reason);
  ASSERT_TRUE(row) << reason;
  ASSERT_EQ(row->scenario.pools.size(), 2u);
  EXPECT_EQ(row->scenario.pools[0].scheduler.max_num_seqs, 4);  // 1 on each of 4 ranks
  EXPECT_EQ(row->scenario.pools[1].scheduler.max_num_seqs, 8);
  run.prefill.max_batch_size = 0;
  const std::optional<PreparedRow> open = prepare_row(run, options, &reason);
  ASSERT_TRUE(open) << reason;
  EXPECT_GT(open->scenario.pools[0].scheduler.max_num_seqs, 4);
  const auto& given = row->scenario.pools[0].engine->defaults.sources;
  const auto& preset = open->scenario.pools[0].engine->defaults.sources;
  EXPECT_EQ(given.at("max_num_seqs"), "given");
  EXPECT_NE(preset.count("max_num_seqs") ? preset.at("max_num_seqs") : "", "given");
}

// The generator turns TensorRT-LLM's overlap scheduler off on prefill workers only: they form
// each step when the one before has ended; the decode side and other engines' prefill sides
// keep their presets' (steps formed ahead).
TEST(SiliconRows, TensorRtLlmPrefillWorkersStepSynchronously) {
  const ScratchFolder scratch(kScratch, "overlap");
  SiliconOptions options;
  options.configs_dir = write_config(scratch.path());
  options.engine_presets = true;
  MeasuredRun run = small_llama_row(1024, 64, 16);
  run.mode = "disagg";
  run.prefill = WorkerLayout{1, 1, 1, 1, 1, 1, 1};
  run.decode = WorkerLayout{1, 1, 1, 1, 1, 1, 16};
  for (const char* engine : {"trtllm", "vllm", "sglang"}) {
    SCOPED_TRACE(engine);
    run.engine = engine;
    std::string reason;
    const std::optional<PreparedRow> row = prepare_row(run, options, &reason);
    ASSERT_TRUE(row) << reason;
    const bool trtllm = std::string(engine) == "trtllm";
    EXPECT_EQ(row->scenario.pools[0].scheduler.schedule_ahead, !trtllm);
    EXPECT_EQ(row->scenario.pools[0].engine->defaults.async_scheduling, !trtllm);
    EXPECT_TRUE(row->scenario.pools[1].scheduler.schedule_ahead);
  }
}

// With generated_limits, an aggregated row's engine batches what AIConfigurator's generator gave
// it for a benchmark run: every engine the row's batch per rank; vLLM and TensorRT-LLM that
// plus the prompt plus 1,500 tokens (TensorRT-LLM's in 32-token blocks, at least the whole
// sequence), SGLang mixed prefill chunks of the prompt plus 1,500 tokens at most its
// chunked-prefill size.
TEST(SiliconRows, AggregatedRowsBatchWhatTheGeneratorGaveTheirEngine) {
  const ScratchFolder scratch(kScratch, "aggregated");
  SiliconOptions options;
  options.configs_dir = write_config(scratch.path());
  options.engine_presets = true;
  options.generated_limits = true;
  options.requests_per_client = 1;
  const auto scheduler = [&](const std::string& engine, int64_t isl, int64_t osl,
                             int64_t concurrency) {
    MeasuredRun run = small_llama_row(isl, osl, concurrency);
    run.engine = engine;
    std::string reason;
    const std::optional<PreparedRow> row = prepare_row(run, options, &reason);
    EXPECT_TRUE(row) << reason;
    return row ? row->scenario.pools[0].scheduler : sched::SchedulerConfig{};
  };
  // The benchmark rules: the row's batch, a budget of that batch plus the prompt plus 1,500.
  const sched::SchedulerConfig vllm = scheduler("vllm", 1024, 64, 16);
  EXPECT_EQ(vllm.max_num_seqs, 16);
  EXPECT_EQ(vllm.max_num_batched_tokens, 16 + 1024 + 1500);
  EXPECT_EQ(scheduler("vllm", 1024, 64, 600).max_num_batched_tokens, 600 + 1024 + 1500);
  const sched::SchedulerConfig trtllm = scheduler("trtllm", 1024, 64, 16);
  EXPECT_EQ(trtllm.max_num_seqs, 16);
  EXPECT_EQ(trtllm.max_num_batched_tokens, 2560);  // 2,540 in 32-token blocks
  EXPECT_EQ(scheduler("trtllm", 1024, 4096, 16).max_num_batched_tokens, 1024 + 4096);
  const sched::SchedulerConfig sglang = scheduler("sglang", 1024, 64, 16);
  EXPECT_EQ(sglang.policy, "chunked_prefill");
  EXPECT_EQ(sglang.max_num_seqs, 16);
  EXPECT_EQ(sglang.max_num_batched_tokens, 1024 + 1500);
  // H100's 80 GB: SGLang chunks prefills at 8,192 tokens.
  EXPECT_EQ(scheduler("sglang", 7000, 64, 4).max_num_batched_tokens, 8192);
  // Off (the default): the presets' limits.
  options.generated_limits = false;
  EXPECT_EQ(scheduler("sglang", 1024, 64, 16).policy, "prefill_first");
  EXPECT_EQ(scheduler("vllm", 1024, 64, 16).max_num_batched_tokens,
            scheduler("vllm", 7000, 64, 16).max_num_batched_tokens);
}

TEST(SiliconRows, StaggeredClientsNoLongerPrefillEveryRoundAsOneBurst) {
  // In lockstep the 8 clients' 2,048-token prompts arrive together every round and share one
  // step budget; staggered, each prompt comes alone between the others' decodes.
  const RowPrediction lockstep = predict(8, false);
  const RowPrediction staggered = predict(8, true);
  EXPECT_EQ(lockstep.num_measured, 48);
  EXPECT_EQ(staggered.num_measured, 48);
  EXPECT_LT(staggered.ttft_ms, 0.7 * lockstep.ttft_ms);
  // Prefills now share steps with other clients' decodes, which stretches their tokens' gaps.
  EXPECT_GT(staggered.tpot_ms, lockstep.tpot_ms);
}

TEST(SiliconRows, OneClientIsTheSameStaggeredOrNot) {
  const RowPrediction lockstep = predict(1, false);
  const RowPrediction staggered = predict(1, true);
  EXPECT_EQ(staggered.ttft_ms, lockstep.ttft_ms);
  EXPECT_EQ(staggered.tpot_ms, lockstep.tpot_ms);
  EXPECT_EQ(staggered.num_measured, 6);
}

// AIConfigurator sets its runs up with an FP8 KV cache for FP8 and NVFP4 checkpoints on every
// engine; fp4 rows of a model whose own checkpoint is MXFP4 (gpt-oss) keep bf16.
TEST(SiliconRows, Fp8AndNvfp4RowsRanAnFp8KvCacheOnEveryEngine) {
  const ScratchFolder scratch(kScratch, "kv_dtype");
  const std::string dir = write_config(scratch.path());
  const std::string llama = (fs::path(dir) / "test--small-llama_config.json").string();
  const std::string mxfp4 = (fs::path(dir) / "org--mxfp4_config.json").string();
  std::ofstream(mxfp4) << R"({"quantization_config": {"quant_method": "mxfp4"}})";
  const std::string wrapped = (fs::path(dir) / "org--wrapped_config.json").string();
  std::ofstream(wrapped)
      << R"({"text_config": {"quantization_config": {"quant_method": "mxfp4"}}})";
  const std::string broken = (fs::path(dir) / "org--broken_config.json").string();
  std::ofstream(broken) << "{not json";
  const std::string array = (fs::path(dir) / "org--array_config.json").string();
  std::ofstream(array) << "[1, 2]";
  MeasuredRun run;
  run.model = "test/small-llama";
  for (const char* engine : {"vllm", "sglang", "trtllm"}) {
    run.engine = engine;
    run.precision = "fp8";
    EXPECT_EQ(served_kv_dtype(run, llama), "fp8") << engine;
    run.precision = "fp4";
    EXPECT_EQ(served_kv_dtype(run, llama), "fp8") << engine;
    EXPECT_FALSE(served_kv_dtype(run, mxfp4)) << engine;
    EXPECT_FALSE(served_kv_dtype(run, wrapped)) << engine;
    for (const char* precision : {"bf16", "int4", ""}) {
      run.precision = precision;
      EXPECT_FALSE(served_kv_dtype(run, llama)) << engine << " " << precision;
    }
  }
  run.precision = "fp8";  // an fp8 row needs no config
  EXPECT_EQ(served_kv_dtype(run, broken), "fp8");
  run.precision = "fp4";
  EXPECT_THROW(served_kv_dtype(run, broken), InputError);
  EXPECT_THROW(served_kv_dtype(run, array), InputError);
  EXPECT_THROW(served_kv_dtype(run, (fs::path(dir) / "absent_config.json").string()), InputError);

  SiliconOptions options;
  options.configs_dir = dir;
  run = small_llama_row(512, 16, 2);
  run.precision = "fp4";
  std::string reason;
  const std::optional<PreparedRow> fp4 = prepare_row(run, options, &reason);
  ASSERT_TRUE(fp4) << reason;
  EXPECT_EQ(fp4->scenario.pools.at(0).deployment.kv_dtype, perf::DType::fp8);
  run.engine = "sglang";
  const std::optional<PreparedRow> sglang = prepare_row(run, options, &reason);
  ASSERT_TRUE(sglang) << reason;
  EXPECT_EQ(sglang->scenario.pools.at(0).deployment.kv_dtype, perf::DType::fp8);
  run.precision = "bf16";
  const std::optional<PreparedRow> bf16 = prepare_row(run, options, &reason);
  ASSERT_TRUE(bf16) << reason;
  EXPECT_EQ(bf16->scenario.pools.at(0).deployment.kv_dtype, perf::DType::bf16);
}

// A row priced from kernel tables knows the engine version they were measured on (the folder's
// <engine>-<version>), so a run of another version can be told apart; a roofline row has none.
TEST(SiliconRows, AKernelTableRowKnowsTheTablesEngineVersion) {
  const ScratchFolder scratch(kScratch, "kernel_tables");
  SiliconOptions options;
  options.configs_dir = write_config(scratch.path());
  const fs::path db = fs::path(options.configs_dir) / "kernels";
  fs::create_directories(db / "h100_sxm" / "vllm-0.7.1");
  std::ofstream(db / "h100_sxm" / "vllm-0.7.1" / "generation_attention_perf.csv")
      << "batch_size,num_heads,num_key_value_heads,head_dim,kv_cache_dtype,step,window_size,"
         "latency\n"
         "1,32,8,64,bfloat16,15,0,0.01\n"
         "1,32,8,64,bfloat16,255,0,0.02\n";
  MeasuredRun run = small_llama_row(512, 16, 2);
  run.engine_version = "0.6.0";
  std::string reason;
  const std::optional<PreparedRow> roofline = prepare_row(run, options, &reason);
  ASSERT_TRUE(roofline) << reason;
  EXPECT_EQ(roofline->kernel_tables_version, "");
  options.step_model = "kernel_db";
  options.kernel_db_dir = db.string();
  options.engine_presets = true;
  const std::optional<PreparedRow> priced = prepare_row(run, options, &reason);
  ASSERT_TRUE(priced) << reason;
  EXPECT_EQ(priced->kernel_tables_version, "0.7.1");
  EXPECT_NE(priced->kernel_tables_version, priced->run.engine_version);
}

// vLLM scheduled synchronously by default before 0.14.0 (its release notes): a row of an
// earlier version runs the preset's synchronous step overhead, a later, nightly or unrecorded
// one the preset's default (async).
TEST(SiliconRows, VllmBefore014SchedulesSynchronously) {
  const ScratchFolder scratch(kScratch, "vllm_versions");
  SiliconOptions options;
  options.configs_dir = write_config(scratch.path());
  options.engine_presets = true;
  const auto async_of = [&](const std::string& version) {
    MeasuredRun run = small_llama_row(512, 16, 2);
    run.engine_version = version;
    std::string reason;
    const std::optional<PreparedRow> row = prepare_row(run, options, &reason);
    EXPECT_TRUE(row) << reason;
    return row->scenario.pools.at(0).engine->defaults.async_scheduling;
  };
  EXPECT_FALSE(async_of("0.12.0"));
  EXPECT_FALSE(async_of("0.11.2"));
  EXPECT_FALSE(async_of("0.9"));
  EXPECT_TRUE(async_of("0.14.0"));
  EXPECT_TRUE(async_of("0.19.0"));
  EXPECT_TRUE(async_of("0.140.0"));
  EXPECT_TRUE(async_of("nightly-5b8c30d62b754b57"));
  EXPECT_TRUE(async_of(""));
  EXPECT_TRUE(async_of("0.x"));
}

}  // namespace
}  // namespace tidal::validate
