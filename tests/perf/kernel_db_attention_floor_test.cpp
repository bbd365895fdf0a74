// Attention the kernel tables hold no kernels for (MLA, Gated DeltaNet linear attention) is the
// roofline's, each layer at least the engine's measured one-head kernel at the same batch and
// length (KernelDbCosts::AttentionFloor). A synthetic H200 folder of attention tables only; the
// expected figures come from the roofline's own costs.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "perf/hf_config.h"
#include "perf/kernel_db_model.h"
#include "perf/model_catalog.h"
#include "perf/roofline_costs.h"
#include "tests/perf/kernel_db_test_util.h"
#include "tests/perf/tiny_hybrid_config.h"

namespace tidal::perf {
namespace {

using namespace kdb_test;

// Context and generation attention of heads 6 / 6 KV / 48, plus (with_one_head) the one-head
// shape 1 / 1 / 128 at a flat `one_head_ms`, every point at batch 1 and 8.
fs::path write_attention_db(const fs::path& root, bool with_one_head, double one_head_ms) {
  const fs::path engine = root / "h200_sxm" / "vllm-0.1.0";
  std::string context =
      "batch_size,isl,num_heads,num_key_value_heads,head_dim,kv_cache_dtype,window_size,latency\n";
  std::string generation =
      "batch_size,num_heads,num_key_value_heads,head_dim,kv_cache_dtype,step,window_size,latency\n";
  for (const int64_t b : {1, 8}) {
    for (const int64_t s : {16, 128, 4096}) {
      context += fmt::format("{},{},6,6,48,bfloat16,0,{}\n", b, s, 0.01 + 1e-8 * b * s * s);
      generation += fmt::format("{},6,6,48,bfloat16,{},0,{}\n", b, s - 1, 0.008 + 1e-7 * b * s);
      if (!with_one_head) continue;
      context += fmt::format("{},{},1,1,128,bfloat16,0,{}\n", b, s, one_head_ms);
      generation += fmt::format("{},1,1,128,bfloat16,{},0,{}\n", b, s - 1, one_head_ms);
    }
  }
  write_file(engine / "context_attention_perf.csv", context);
  write_file(engine / "generation_attention_perf.csv", generation);
  return root;
}

// 8 layers, every 4th full attention: 6 linear-attention layers.
ModelSpec tiny_hybrid() {
  ModelSpec m = parse_hf_config(test::tiny_hybrid_config(), "tiny_config.json");
  m.name = "tiny";
  return m;
}

struct Priced {
  double prefill = 0.0;
  double decode = 0.0;
  std::string decode_detail;
};

Priced price(const fs::path& db, const ModelSpec& model, const Deployment& deployment,
             const std::vector<SeqWork>& batch) {
  KernelDbCoverage coverage;
  const auto step_model =
      make_kernel_db_model(spec_of(db), model, h200(), deployment, RooflineOptions{}, &coverage);
  const StepBreakdown b = step_model->breakdown(batch);
  return {b[OpClass::attention_prefill], b[OpClass::attention_decode],
          coverage.of(OpClass::attention_decode).detail};
}

TEST(KernelDbAttentionFloor, MlaLayersTakeAtLeastTheOneHeadKernel) {
  TempDir dir("floor-mla");
  const ModelSpec& model = find_model("deepseek-v3", "t");
  const Deployment deployment{8};
  const fs::path db = write_attention_db(dir.path(), true, 0.02);
  const RooflineCosts roofline(model, h200(), deployment, RooflineOptions{});
  const double layers = static_cast<double>(model.num_attention_layers());
  // A few short decodes and a short prompt: the floor binds in both phases.
  const std::vector<SeqWork> small = {{1, 15, 1}, {1, 15, 1}, {16, 0, 1}};
  const Priced floored = price(db, model, deployment, small);
  const AttentionSeconds r = roofline.attention_seconds(small);
  ASSERT_LT(r.decode, layers * 20e-6);
  EXPECT_NEAR(floored.decode, layers * 20e-6, 1e-12);
  ASSERT_LT(r.prefill, layers * 20e-6);
  EXPECT_NEAR(floored.prefill, layers * 20e-6, 1e-12);
  EXPECT_NE(floored.decode_detail.find("MLA"), std::string::npos);
  EXPECT_NE(floored.decode_detail.find("one-head kernel"), std::string::npos);
  // A long prefill: the roofline's time is above the floor and stands.
  const std::vector<SeqWork> long_prompt = {{4096, 0, 1}};
  const double roofline_prefill = roofline.attention_seconds(long_prompt).prefill;
  ASSERT_GT(roofline_prefill, layers * 20e-6);
  EXPECT_DOUBLE_EQ(price(db, model, deployment, long_prompt).prefill, roofline_prefill);
}

TEST(KernelDbAttentionFloor, NoFloorWithoutAMeasuredOneHeadShape) {
  TempDir dir("floor-none");
  const ModelSpec& model = find_model("deepseek-v3", "t");
  const Deployment deployment{8};
  const fs::path db = write_attention_db(dir.path(), false, 0.0);
  const std::vector<SeqWork> small = {{1, 15, 1}, {16, 0, 1}};
  const Priced priced = price(db, model, deployment, small);
  const AttentionSeconds r =
      RooflineCosts(model, h200(), deployment, RooflineOptions{}).attention_seconds(small);
  EXPECT_DOUBLE_EQ(priced.decode, r.decode);
  EXPECT_DOUBLE_EQ(priced.prefill, r.prefill);
  EXPECT_EQ(priced.decode_detail.find("one-head kernel"), std::string::npos);
}

// The hybrid's full-attention layers keep their table price; only its linear layers are floored.
TEST(KernelDbAttentionFloor, LinearAttentionLayersTakeAtLeastTheOneHeadKernel) {
  TempDir with_dir("floor-linear");
  TempDir without_dir("floor-linear-none");
  const ModelSpec model = tiny_hybrid();
  const Deployment deployment{1};
  const fs::path with = write_attention_db(with_dir.path(), true, 0.02);
  const fs::path without = write_attention_db(without_dir.path(), false, 0.0);
  const std::vector<SeqWork> decodes = {{1, 100, 1}, {1, 200, 1}};
  const double linear = RooflineCosts(model, h200(), deployment, RooflineOptions{})
                            .linear_attention_seconds(decodes)
                            .decode;
  const double floor = 6.0 * 20e-6;
  ASSERT_LT(linear, floor);
  const Priced floored = price(with, model, deployment, decodes);
  const Priced plain = price(without, model, deployment, decodes);
  EXPECT_NEAR(floored.decode - plain.decode, floor - linear, 1e-12);
  EXPECT_NE(floored.decode_detail.find("linear-attention layers: roofline"), std::string::npos);
  EXPECT_NE(floored.decode_detail.find("one-head kernel"), std::string::npos);
}

}  // namespace
}  // namespace tidal::perf
