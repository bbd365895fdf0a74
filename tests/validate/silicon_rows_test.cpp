// Measured rows as closed-loop scenarios: clients in lockstep (as they start) or staggered.
#include "validate/silicon_rows.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/input_error.h"
#include "validate/served_kv_dtype.h"

namespace tidal::validate {
namespace {

namespace fs = std::filesystem;

// A 1B-class Llama written as a Hugging Face config, named as measured.csv's rows name models.
std::string write_config() {
  const fs::path dir =
      fs::temp_directory_path() / ("tidal_silicon_rows_" + std::to_string(::getpid()));
  fs::create_directories(dir);
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
  SiliconOptions options;
  options.configs_dir = write_config();
  options.requests_per_client = 6;
  options.stagger_clients = stagger;
  const MeasuredRun run = small_llama_row(2048, 64, concurrency);
  std::string reason;
  const std::optional<PreparedRow> row = prepare_row(run, options, &reason);
  EXPECT_TRUE(row) << reason;
  return row ? predict_row(*row, nullptr) : RowPrediction{};
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

// An fp4 row served the NVFP4 checkpoint; where its files declare an FP8 KV cache, vLLM and
// TensorRT-LLM ran with it, and the row's pool does.
TEST(SiliconRows, Fp4RowsTakeTheNvfp4CheckpointsKvDtypeOnEnginesThatFollowIt) {
  const std::string dir = write_config();
  std::ofstream(fs::path(dir) / "nvidia--small-llama-NVFP4_hf_quant_config.json")
      << R"({"quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": "FP8"}})";
  std::ofstream(fs::path(dir) / "nvidia--other-NVFP4_config.json")
      << R"({"quantization_config": {"quant_method": "modelopt",
            "kv_cache_scheme": {"num_bits": 8, "type": "float", "dynamic": false}}})";
  std::ofstream(fs::path(dir) / "nvidia--plain-NVFP4_hf_quant_config.json")
      << R"({"quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": null}})";
  std::ofstream(fs::path(dir) / "nvidia--broken-NVFP4_hf_quant_config.json") << "{not json";
  MeasuredRun run;
  run.engine = "vllm";
  run.model = "test/small-llama";
  run.precision = "fp4";
  EXPECT_EQ(served_kv_dtype(run, dir), "fp8");
  run.engine = "trtllm";
  EXPECT_EQ(served_kv_dtype(run, dir), "fp8");
  run.engine = "sglang";  // no source says SGLang follows the checkpoint: bf16
  EXPECT_FALSE(served_kv_dtype(run, dir));
  run.engine = "vllm";
  run.precision = "fp8";
  EXPECT_FALSE(served_kv_dtype(run, dir));
  run.precision = "fp4";
  run.model = "org/other";
  EXPECT_EQ(served_kv_dtype(run, dir), "fp8");
  run.model = "nvidia/other-NVFP4";  // the row names the NVFP4 checkpoint itself
  EXPECT_EQ(served_kv_dtype(run, dir), "fp8");
  run.model = "org/plain";
  EXPECT_FALSE(served_kv_dtype(run, dir));
  run.model = "org/absent";
  EXPECT_FALSE(served_kv_dtype(run, dir));
  run.model = "org/broken";
  EXPECT_THROW(served_kv_dtype(run, dir), InputError);

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
  EXPECT_EQ(sglang->scenario.pools.at(0).deployment.kv_dtype, perf::DType::bf16);
}

}  // namespace
}  // namespace tidal::validate
