// Lossy speedups (docs/perf.md, "Lossy speedups"): a pool's `lossy` knobs change step times and
// KV capacity as documented, change nothing when off, and bad values name their JSON path.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "perf/lossy_step_model.h"
#include "sim/run_output.h"
#include "sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::load_one_pool;
using testing::one_pool_error;

const std::vector<perf::SeqWork> kLongDecodes{{1, 8000, 1}, {1, 6000, 1}, {1, 300, 1}};

TEST(Lossy, NothingChangesWhenNoKnobIsOn) {
  const Scenario plain = load_one_pool("llama-3-8b", "");
  const Scenario declared =
      load_one_pool("llama-3-8b", R"(, "lossy": {"declared_quality_loss": 0.02})");
  const PoolSpec& a = plain.pools[0];
  const PoolSpec& b = declared.pools[0];
  ASSERT_TRUE(b.lossy);
  EXPECT_FALSE(b.lossy->changes_anything());
  EXPECT_EQ(a.kv.num_gpu_blocks, b.kv.num_gpu_blocks);
  EXPECT_EQ(a.step_model->step_seconds(kLongDecodes), b.step_model->step_seconds(kLongDecodes));
  RunResult ra = run_scenario(plain);
  RunResult rb = run_scenario(declared);
  ASSERT_EQ(ra.records.size(), rb.records.size());
  for (size_t i = 0; i < ra.records.size(); ++i) {
    EXPECT_EQ(ra.records[i].finish_ns, rb.records[i].finish_ns) << i;
  }
  // The echo carries the declaration and loads again.
  const nlohmann::ordered_json echo = scenario_to_json(declared);
  EXPECT_EQ(echo["fleet"]["pools"][0]["lossy"]["declared_quality_loss"].get<double>(), 0.02);
  EXPECT_TRUE(echo["fleet"]["pools"][0]["lossy"]["kv_window_tokens"].is_null());
  EXPECT_FALSE(scenario_to_json(plain)["fleet"]["pools"][0].contains("lossy"));
  const Scenario again = parse_scenario(nlohmann::json::parse(echo.dump()), "echo.json", "");
  EXPECT_EQ(again.pools[0].lossy->declared_quality_loss, 0.02);
}

TEST(Lossy, KeptRatioShrinksAttentionReadsAndKvBytesPerToken) {
  const PoolSpec exact = load_one_pool("llama-3-8b", "").pools[0];
  const PoolSpec half =
      load_one_pool("llama-3-8b", R"(, "lossy": {"kv_kept_ratio": 0.5})").pools[0];
  EXPECT_DOUBLE_EQ(half.memory.kv_bytes_per_token_per_gpu,
                   exact.memory.kv_bytes_per_token_per_gpu * 0.5);
  // The same budget cut into blocks of half the bytes.
  const double budget = exact.memory.kv_cache_bytes_per_gpu;
  EXPECT_EQ(half.kv.num_gpu_blocks,
            static_cast<int64_t>(std::floor(
                budget / (half.memory.kv_bytes_per_token_per_gpu * half.deployment.block_size))));
  EXPECT_GE(half.kv.num_gpu_blocks, 2 * exact.kv.num_gpu_blocks);
  // Attention reads half of each context: the step is the exact model's on those contexts.
  const std::vector<perf::SeqWork> read{{1, 4000, 1}, {1, 3000, 1}, {1, 150, 1}};
  EXPECT_DOUBLE_EQ(half.step_model->step_seconds(kLongDecodes),
                   exact.step_model->step_seconds(read));
  EXPECT_LT(half.step_model->step_seconds(kLongDecodes),
            exact.step_model->step_seconds(kLongDecodes));
}

TEST(Lossy, WindowCapsTheContextAttentionReadsButNotTheCache) {
  const PoolSpec exact = load_one_pool("llama-3-8b", "").pools[0];
  const PoolSpec window =
      load_one_pool("llama-3-8b", R"(, "lossy": {"kv_window_tokens": 1024})").pools[0];
  EXPECT_EQ(window.kv.num_gpu_blocks, exact.kv.num_gpu_blocks);
  const std::vector<perf::SeqWork> read{{1, 1024, 1}, {1, 1024, 1}, {1, 300, 1}};
  EXPECT_DOUBLE_EQ(window.step_model->step_seconds(kLongDecodes),
                   exact.step_model->step_seconds(read));
  // A prefill chunk keeps its new tokens; only the cached context is cut.
  const std::vector<perf::SeqWork> chunk{{512, 5000, 0}};
  const std::vector<perf::SeqWork> chunk_read{{512, 1024, 0}};
  EXPECT_DOUBLE_EQ(window.step_model->step_seconds(chunk),
                   exact.step_model->step_seconds(chunk_read));
}

TEST(Lossy, LayerSkippingScalesPerLayerOperatorsAndKv) {
  const PoolSpec exact = load_one_pool("llama-3-8b", "").pools[0];
  const PoolSpec skip =
      load_one_pool("llama-3-8b", R"(, "lossy": {"layer_skip_share": 0.25})").pools[0];
  EXPECT_DOUBLE_EQ(skip.memory.kv_bytes_per_token_per_gpu,
                   exact.memory.kv_bytes_per_token_per_gpu * 0.75);
  EXPECT_EQ(skip.memory.weight_bytes_per_gpu, exact.memory.weight_bytes_per_gpu);
  const perf::StepBreakdown a = exact.step_model->breakdown(kLongDecodes);
  const perf::StepBreakdown b = skip.step_model->breakdown(kLongDecodes);
  for (perf::OpClass once : {perf::OpClass::embedding, perf::OpClass::lm_head,
                             perf::OpClass::sampling, perf::OpClass::cpu_overhead}) {
    EXPECT_DOUBLE_EQ(b[once], a[once]) << perf::op_class_name(once);
  }
  for (perf::OpClass layer : {perf::OpClass::qkv_proj, perf::OpClass::attention_decode,
                              perf::OpClass::mlp_up_gate, perf::OpClass::mlp_down}) {
    EXPECT_GT(a[layer], 0.0) << perf::op_class_name(layer);
    EXPECT_DOUBLE_EQ(b[layer], a[layer] * 0.75) << perf::op_class_name(layer);
  }
  EXPECT_DOUBLE_EQ(skip.step_model->step_seconds(kLongDecodes), b.total_seconds());
  EXPECT_LT(b.total_seconds(), a.total_seconds());
}

TEST(Lossy, BadKnobsNameTheirPath) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {R"("kv_kept_ratio": 0)", "fleet.pools[0].lossy.kv_kept_ratio: must be in (0, 1], got 0"},
      {R"("kv_kept_ratio": 1.5)", "fleet.pools[0].lossy.kv_kept_ratio: must be in (0, 1]"},
      {R"("kv_window_tokens": 0)", "fleet.pools[0].lossy.kv_window_tokens"},
      {R"("layer_skip_share": 1)", "fleet.pools[0].lossy.layer_skip_share: must be in [0, 1)"},
      {R"("layer_skip_share": 0.99)", "leave at least one of llama-3-8b's 32 layers"},
      {R"("declared_quality_loss": -0.1)",
       "fleet.pools[0].lossy.declared_quality_loss: must be in [0, 1]"},
      {R"("kv_keep": 0.5)", "fleet.pools[0].lossy"},
  };
  for (const auto& [keys, expected] : cases) {
    const std::string error = one_pool_error("llama-3-8b", R"(, "lossy": {)" + keys + "}");
    EXPECT_NE(error.find(expected), std::string::npos) << keys << ": " << error;
  }
  const std::string pp =
      one_pool_error("llama-3-8b", R"(, "pp": 2, "lossy": {"kv_kept_ratio": 0.5})");
  EXPECT_NE(pp.find("lossy.kv_kept_ratio: not with pipeline parallelism (pp 2)"), std::string::npos)
      << pp;
}

}  // namespace
}  // namespace tidal::sim
