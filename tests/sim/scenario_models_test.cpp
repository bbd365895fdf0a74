// A pool's model and GPU as a catalog name, a Hugging Face config.json path, or an inline object:
// what the scenario resolves, what it echoes, and the errors a bad one gives.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "base/input_error.h"
#include "sim/scenario.h"
#include "tests/scratch_folder.h"

namespace tidal::sim {
namespace {

namespace fs = std::filesystem;

const std::string kConfigs = std::string(TIDAL_SHARED_DIR) + "/models/hf-configs";

std::string scenario_text(const std::string& model, const std::string& gpu,
                          const std::string& pool_extra = "") {
  return R"({"workloads": [{"generator": {"kind": "poisson", "rate": 2, "duration_s": 10}}],
             "fleet": {"pools": [{"model": )" +
         model + R"(, "gpu": )" + gpu + pool_extra + "}]}}";
}

std::string error_of(const std::string& text) {
  try {
    load_scenario_text(text, "scenario.json", "");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

constexpr char kTinyLlama[] = R"({"model_type": "llama", "hidden_size": 1024,
    "num_hidden_layers": 4, "num_attention_heads": 16, "num_key_value_heads": 4,
    "intermediate_size": 4096, "vocab_size": 32000, "max_position_embeddings": 4096,
    "rms_norm_eps": 1e-5})";

TEST(ScenarioModels, ConfigPathResolvesAgainstTheScenarioFolderAndEchoesResolved) {
  const ScratchFolder scratch("tidal_scenario_models", "config_path");
  const fs::path& dir = scratch.path();
  fs::create_directories(dir / "models/small");
  std::ofstream(dir / "models/small/config.json") << kTinyLlama;
  std::ofstream(dir / "s.json") << scenario_text(R"("models/small")", R"("H100-SXM")");
  const Scenario s = load_scenario_file((dir / "s.json").string());
  const PoolSpec& p = s.pools[0];
  EXPECT_EQ(p.model, "small");  // the folder's name
  EXPECT_EQ(p.model_spec.num_layers, 4);
  EXPECT_EQ(p.model_input, (dir / "models/small").lexically_normal().string());
  // The echo names the resolved path, so it loads from anywhere.
  const std::string echo = scenario_to_json(s).dump();
  EXPECT_EQ(scenario_to_json(load_scenario_text(echo, "echo.json", "")).dump(), echo);
}

TEST(ScenarioModels, InlineModelAndGpuObjects) {
  const std::string gpu = R"({"name": "my-accelerator", "memory_gib": 48,
      "hbm_bandwidth_gb_per_s": 1000, "flops_bf16_tflops": 200, "price_on_demand_per_h": 1.5})";
  const std::string text = scenario_text(kTinyLlama, gpu);
  const Scenario s = load_scenario_text(text, "scenario.json", "");
  const PoolSpec& p = s.pools[0];
  EXPECT_EQ(p.gpu, "my-accelerator");
  EXPECT_DOUBLE_EQ(p.gpu_spec.memory_bytes, 48.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(p.model_spec.hidden, 1024);
  EXPECT_DOUBLE_EQ(p.resolved_price_per_gpu_hour, 1.5);
  EXPECT_TRUE(p.model_input.is_object());
  const std::string echo = scenario_to_json(s).dump();
  EXPECT_EQ(scenario_to_json(load_scenario_text(echo, "echo.json", "")).dump(), echo);
}

TEST(ScenarioModels, CatalogNamesEchoCanonically) {
  const Scenario s =
      load_scenario_text(scenario_text(R"("Meta-Llama-3-8B")", R"("h100")"), "scenario.json", "");
  EXPECT_EQ(s.pools[0].model_input, "llama-3-8b");
  EXPECT_EQ(s.pools[0].gpu_input, "H100-SXM");
}

TEST(ScenarioModels, BadModelsNameThePath) {
  EXPECT_NE(error_of(scenario_text(R"("no-such-model")", R"("H100-SXM")"))
                .find("scenario.json: fleet.pools[0].model: unknown model \"no-such-model\""),
            std::string::npos);
  EXPECT_NE(error_of(scenario_text(R"("missing/config.json")", R"("H100-SXM")"))
                .find("scenario.json: fleet.pools[0].model"),
            std::string::npos);
  std::string five_kv_heads = kTinyLlama;
  five_kv_heads.replace(five_kv_heads.find("\"num_key_value_heads\": 4"), 24,
                        "\"num_key_value_heads\": 5");
  const std::string error = error_of(scenario_text(five_kv_heads, R"("H100-SXM")"));
  EXPECT_NE(error.find("scenario.json: fleet.pools[0].model"), std::string::npos) << error;
  EXPECT_NE(error.find("num_key_value_heads"), std::string::npos) << error;
  EXPECT_NE(error_of(scenario_text("42", R"("H100-SXM")")).find("fleet.pools[0].model"),
            std::string::npos);
  EXPECT_NE(
      error_of(scenario_text(R"("llama-3-8b")", R"({"name": "x"})")).find("fleet.pools[0].gpu"),
      std::string::npos);
}

TEST(ScenarioModels, QuantizedCheckpointIsServedInItsFormatUnlessThePoolSaysOtherwise) {
  const std::string path = kConfigs + "/openai--gpt-oss-120b_config.json";
  if (!fs::exists(path)) GTEST_SKIP() << "no " << path;
  const Scenario own = load_scenario_text(
      scenario_text("\"" + path + "\"", R"("H100-SXM")", R"(, "tp": 2)"), "scenario.json", "");
  EXPECT_EQ(own.pools[0].deployment.weight_dtype, perf::DType::fp4);
  EXPECT_EQ(own.pools[0].model_spec.num_sliding_layers(), 18);
  const Scenario fp8 = load_scenario_text(
      scenario_text("\"" + path + "\"", R"("H100-SXM")", R"(, "tp": 2, "weight_dtype": "fp8")"),
      "scenario.json", "");
  EXPECT_EQ(fp8.pools[0].deployment.weight_dtype, perf::DType::fp8);
  EXPECT_GT(fp8.pools[0].memory.weight_bytes_per_gpu, own.pools[0].memory.weight_bytes_per_gpu);
}

TEST(ScenarioModels, Llama31TakesItsWholeContext) {
  const std::string path = kConfigs + "/meta-llama--Meta-Llama-3.1-8B_config.json";
  if (!fs::exists(path)) GTEST_SKIP() << "no " << path;
  const std::string sched =
      R"(, "scheduler": {"policy": "chunked_prefill", "max_model_len": 131072})";
  const Scenario s = load_scenario_text(scenario_text("\"" + path + "\"", R"("H100-SXM")", sched),
                                        "scenario.json", "");
  EXPECT_EQ(s.pools[0].scheduler.max_model_len, 131072);
  // So does the catalog's own Llama-3.1 entry; Llama-3 stops at 8,192.
  EXPECT_EQ(error_of(scenario_text(R"("llama-3.1-8b")", R"("H100-SXM")", sched)), "(no error)");
  EXPECT_NE(error_of(scenario_text(R"("llama-3-8b")", R"("H100-SXM")", sched))
                .find("exceeds max_position 8192"),
            std::string::npos);
}

}  // namespace
}  // namespace tidal::sim
