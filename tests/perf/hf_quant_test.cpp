// Checkpoint quantization read from config.json and hf_quant_config.json: each published scheme,
// the modules kept unquantized, the scales counted.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include <fmt/format.h>

#include "base/input_error.h"
#include "perf/hf_config.h"
#include "perf/hf_quant.h"
#include "perf/model_catalog.h"
#include "perf/model_resolve.h"
#include "tests/perf/hf_config_test_util.h"

namespace tidal::perf {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace hf_test;

TEST(HfConfigQuant, ReadsEachPublishedScheme) {
  SKIP_WITHOUT_SHARED_CONFIGS();
  // ModelOpt NVFP4 from hf_quant_config.json beside the config: attention listed as excluded.
  const ModelSpec nvfp4 = shared("nvidia--DeepSeek-V3.1-NVFP4");
  EXPECT_EQ(nvfp4.quant.method, "nvfp4");
  EXPECT_EQ(nvfp4.quant.dtype, DType::fp4);
  EXPECT_DOUBLE_EQ(nvfp4.quant.scale_bytes_per_weight, 1.0 / 16);
  EXPECT_FALSE(nvfp4.quant.attention);
  EXPECT_TRUE(nvfp4.quant.dense_mlp && nvfp4.quant.experts && nvfp4.quant.shared_experts);
  EXPECT_EQ(nvfp4.quant.not_converted.size(), 246u);
  // ModelOpt FP8 per tensor from hf_quant_config.json; the KV-cache scheme is noted.
  const ModelSpec fp8 = shared("nvidia--Llama-3.1-70B-Instruct-FP8");
  EXPECT_EQ(fp8.quant.method, "fp8");
  EXPECT_EQ(fp8.quant.scale_bytes_per_weight, 0.0);
  EXPECT_TRUE(fp8.quant.attention && fp8.quant.dense_mlp);
  EXPECT_NE(fp8.notes.find("KV-cache quantization"), std::string::npos);
  // ModelOpt in config.json without a quant_method.
  EXPECT_EQ(shared("Qwen--Qwen3-32B-FP8-Static-PerTensor").quant.dtype, DType::fp8);
  // compressed-tensors int4 experts: attention, shared experts and dense MLPs ignored.
  const ModelSpec int4 = shared("moonshotai--Kimi-K2.5");
  EXPECT_EQ(int4.quant.method, "int4");
  EXPECT_EQ(int4.quant.dtype, DType::int4);
  EXPECT_DOUBLE_EQ(int4.quant.scale_bytes_per_weight, 2.0 / 32);
  EXPECT_FALSE(int4.quant.attention);
  EXPECT_FALSE(int4.quant.shared_experts);
  EXPECT_FALSE(int4.quant.dense_mlp);
  EXPECT_TRUE(int4.quant.experts);
  // A whole dense layer excluded ("language_model.model.layers.0*", first_k_dense_replace 1).
  const ModelSpec kimi26 = shared("nvidia--Kimi-K2.6-NVFP4");
  EXPECT_FALSE(kimi26.quant.dense_mlp);
  EXPECT_FALSE(kimi26.quant.attention);
  EXPECT_TRUE(kimi26.quant.experts);
  // Norms, routers and the sparse-attention indexer listed: attention stays FP8.
  const ModelSpec glm = shared("zai-org--GLM-5-FP8");
  EXPECT_TRUE(glm.quant.attention && glm.quant.dense_mlp && glm.quant.experts);
  EXPECT_TRUE(shared("Qwen--Qwen3-235B-A22B-FP8").quant.attention);
}

TEST(HfConfigQuant, ClassifiesModulePatternsByWhatTheyName) {
  auto part = [](const std::string& p) { return classify_module_pattern(p, 61).part; };
  EXPECT_EQ(part("model.layers.*.self_attn"), ModulePart::attention);
  EXPECT_EQ(part("re:.*self_attn.*"), ModulePart::attention);
  EXPECT_EQ(part("model.layers.3.self_attn.kv_a_layernorm"), ModulePart::none);
  EXPECT_EQ(part("model.layers.3.self_attn.indexer*"), ModulePart::none);
  EXPECT_EQ(part("model.layers.3.mlp.gate"), ModulePart::none);
  EXPECT_EQ(part("gate"), ModulePart::none);
  EXPECT_EQ(part("lm_head"), ModulePart::none);
  EXPECT_EQ(part("model.embed_tokens"), ModulePart::none);
  EXPECT_EQ(part("model.layers.61*"), ModulePart::none);  // the MTP layer
  EXPECT_EQ(part("re:.*shared_experts.*"), ModulePart::shared_experts);
  EXPECT_EQ(part("model.layers.9.mlp.experts.3.down_proj"), ModulePart::experts);
  EXPECT_EQ(part(R"(re:.*mlp\.(gate|up|gate_up|down)_proj.*)"), ModulePart::dense_mlp);
  EXPECT_EQ(part("model.layers.4.mlp*"), ModulePart::mlp_block);
  const ModuleTarget whole = classify_module_pattern("model.layers.1.*", 61);
  EXPECT_EQ(whole.part, ModulePart::whole_layer);
  EXPECT_EQ(whole.layer, 1);
  EXPECT_EQ(part("something.else"), ModulePart::unknown);
}

TEST(HfConfigQuant, GroupQuantizedFormatsCountTheirScales) {
  json c = llama_config();
  c["quantization_config"] = {
      {"quant_method", "awq"}, {"bits", 4}, {"group_size", 128}, {"zero_point", true}};
  ModelSpec awq = parse_hf_config(c, "t");
  EXPECT_EQ(awq.quant.dtype, DType::int4);
  EXPECT_DOUBLE_EQ(awq.quant.scale_bytes_per_weight, 2.5 / 128);  // fp16 scale, 4-bit zero
  c["quantization_config"] = {{"quant_method", "gptq"}, {"bits", 8}, {"group_size", 128}};
  EXPECT_DOUBLE_EQ(parse_hf_config(c, "t").quant.scale_bytes_per_weight, 3.0 / 128);
  c["quantization_config"] = {{"quant_method", "compressed-tensors"},
                              {"config_groups",
                               {{"group_0",
                                 {{"targets", {"Linear"}},
                                  {"weights",
                                   {{"num_bits", 4},
                                    {"type", "int"},
                                    {"strategy", "group"},
                                    {"group_size", 32},
                                    {"symmetric", true}}}}}}},
                              {"ignore", {"lm_head", "re:.*self_attn.*"}}};
  const ModelSpec ct = parse_hf_config(c, "t");
  EXPECT_EQ(ct.quant.method, "int4");
  EXPECT_DOUBLE_EQ(ct.quant.scale_bytes_per_weight, 2.0 / 32);
  EXPECT_FALSE(ct.quant.attention);
  EXPECT_TRUE(ct.quant.dense_mlp);
  c["quantization_config"] = {
      {"quant_method", "fp8"},
      {"weight_block_size", {128, 128}},
      {"modules_to_not_convert", {"model.layers.0.mlp", "model.layers.1.mlp"}}};
  c["num_hidden_layers"] = 2;
  EXPECT_FALSE(parse_hf_config(c, "t").quant.dense_mlp);  // every dense layer listed
  c["num_hidden_layers"] = 3;
  const ModelSpec partial = parse_hf_config(c, "t");
  EXPECT_TRUE(partial.quant.dense_mlp);
  EXPECT_NE(partial.notes.find("2 of 3 layers keep their dense MLP"), std::string::npos);
}

// --- one clear error per bad config ---------------------------------------------------------

}  // namespace
}  // namespace tidal::perf
