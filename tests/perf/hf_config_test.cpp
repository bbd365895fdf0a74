// The Hugging Face config reader against the real configs in shared/models/hf-configs: every one
// understood or refused by its model_type, parameter counts against published figures, exact KV
// shapes, and each architecture's own keys.
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
#include "perf/memory_plan.h"
#include "perf/model_catalog.h"
#include "perf/model_resolve.h"
#include "tests/perf/hf_config_test_util.h"

namespace tidal::perf {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace hf_test;

// --- every shared config --------------------------------------------------------------------

TEST(HfConfig, EverySharedConfigIsUnderstoodOrRefusedByItsModelType) {
  SKIP_WITHOUT_SHARED_CONFIGS();
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(shared_configs())) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with("_config.json") && !is_quant_file(name)) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::set<std::string> understood_types, refused_types;
  int understood = 0, refused = 0;
  for (const fs::path& file : files) {
    const std::string type = read_hf_json_file(file).at("model_type").get<std::string>();
    SCOPED_TRACE(file.filename().string());
    try {
      const ModelSpec m = load_hf_config(file);
      ++understood;
      understood_types.insert(type);
      std::cout << fmt::format("understood {:<52} {:<13} {:8.1f}B total {:7.1f}B active {}\n",
                               m.name, type, m.total_params() / 1e9, m.active_params() / 1e9,
                               m.quant.method.empty() ? "" : m.quant.method);
    } catch (const InputError& e) {
      ++refused;
      refused_types.insert(type);
      // Refused for its architecture (naming the model type) or for its checkpoint's format.
      const std::string message = e.what();
      const bool names_type = message.find("\"" + type + "\"") != std::string::npos;
      const bool names_quant = message.find("quantization_config.") != std::string::npos;
      EXPECT_TRUE(names_type || names_quant) << message;
      EXPECT_NE(message.find(file.string()), std::string::npos) << message;
      std::cout << fmt::format("refused    {:<52} {}\n", file.filename().string(), type);
    }
  }
  std::cout << fmt::format("{} configs: {} understood ({} model types), {} refused ({} types)\n",
                           files.size(), understood, understood_types.size(), refused,
                           refused_types.size());
  EXPECT_EQ(understood + refused, static_cast<int>(files.size()));
  for (const char* type : {"llama", "qwen3", "qwen3_moe", "mixtral", "deepseek_v3", "kimi_k2",
                           "deepseek_v32", "gpt_oss", "llama4", "qwen3_5", "qwen3_5_moe"}) {
    EXPECT_TRUE(understood_types.contains(type)) << type;
  }
  EXPECT_TRUE(refused_types.contains("gemma4"));
}

// --- published parameter counts -------------------------------------------------------------

// Published figures are rounded: a check allows max(1%, half a unit of the figure's last digit).
void expect_published(const std::string& what, double ours, double published_billions,
                      double last_digit_billions) {
  const double published = published_billions * 1e9;
  const double tolerance = std::max(0.01, 0.5 * last_digit_billions / published_billions);
  const double error = (ours - published) / published;
  std::cout << fmt::format(
      "{:<40} ours {:9.2f}B  published {:7.2f}B  error {:+6.2f}%  (tolerance "
      "{:.2f}%)\n",
      what, ours / 1e9, published_billions, 100 * error, 100 * tolerance);
  EXPECT_LE(std::fabs(error), tolerance) << what;
}

TEST(HfConfigPublished, ParameterCountsMatchPublishedFigures) {
  SKIP_WITHOUT_SHARED_CONFIGS();
  // Hugging Face model cards' safetensors parameter counts (meta-llama/Llama-3.1-8B, -70B, -405B).
  expect_published("Llama-3.1-8B total", shared("meta-llama--Meta-Llama-3.1-8B").total_params(),
                   8.03, 0.01);
  expect_published("Llama-3.1-70B total", shared("meta-llama--Meta-Llama-3.1-70B").total_params(),
                   70.6, 0.1);
  expect_published("Llama-3.1-405B total", shared("meta-llama--Meta-Llama-3.1-405B").total_params(),
                   405.9, 0.1);
  // Qwen/Qwen3-32B model card: "Number of Parameters: 32.8B".
  expect_published("Qwen3-32B total", shared("Qwen--Qwen3-32B").total_params(), 32.8, 0.1);
  // Qwen/Qwen3-235B-A22B model card: "235B in total and 22B activated" (Qwen counts the input
  // embedding as active: active_params()).
  const ModelSpec qwen_moe = shared("Qwen--Qwen3-235B-A22B");
  expect_published("Qwen3-235B-A22B total", qwen_moe.total_params(), 235, 1);
  expect_published("Qwen3-235B-A22B active", qwen_moe.active_params(), 22, 1);
  // OpenAI gpt-oss model card (2025-08): 20.9B / 3.6B and 116.8B / 5.1B; its active figures leave
  // the input embedding out.
  const ModelSpec oss20 = shared("openai--gpt-oss-20b");
  const ModelSpec oss120 = shared("openai--gpt-oss-120b");
  expect_published("gpt-oss-20b total", oss20.total_params(), 20.9, 0.1);
  expect_published("gpt-oss-20b active (no input embedding)",
                   oss20.active_params_without_embedding(), 3.6, 0.1);
  expect_published("gpt-oss-120b total", oss120.total_params(), 116.8, 0.1);
  expect_published("gpt-oss-120b active (no input embedding)",
                   oss120.active_params_without_embedding(), 5.1, 0.1);
  // DeepSeek-V3 Technical Report (arXiv:2412.19437), abstract: 671B total, 37B activated, the MTP
  // module not included. 37B fits the count without the input embedding (36.7B, -0.9%); with it
  // the count is 37.6B (+1.6%, outside the rounding of "37").
  const ModelSpec deepseek = shared("deepseek-ai--DeepSeek-V3");
  expect_published("DeepSeek-V3 total", deepseek.total_params(), 671, 1);
  expect_published("DeepSeek-V3 active (no input embedding)",
                   deepseek.active_params_without_embedding(), 37, 1);
  // Mistral AI, "Mixtral of experts" (2023-12-11): 46.7B total, 12.9B used per token.
  const ModelSpec mixtral = shared("mistralai--Mixtral-8x7B-v0.1");
  expect_published("Mixtral-8x7B total", mixtral.total_params(), 46.7, 0.1);
  expect_published("Mixtral-8x7B active", mixtral.active_params(), 12.9, 0.1);
  // moonshotai/Kimi-K2-Instruct model card: 1T total ("1T" read as 1.0T), 32B activated; like
  // DeepSeek's, the active figure fits the count without the input embedding.
  const ModelSpec kimi = shared("moonshotai--Kimi-K2-Instruct");
  expect_published("Kimi-K2 total", kimi.total_params(), 1000, 100);
  expect_published("Kimi-K2 active (no input embedding)", kimi.active_params_without_embedding(),
                   32, 1);
  // Meta Llama 4 model card: Maverick 400B total, 17B active; Scout 17B active (its 109B total
  // includes the vision encoder, which tidal does not count).
  const ModelSpec maverick = shared("meta-llama--Llama-4-Maverick-17B-128E-Instruct");
  expect_published("Llama-4-Maverick total", maverick.total_params(), 400, 1);
  expect_published("Llama-4-Maverick active", maverick.active_params(), 17, 1);
  expect_published("Llama-4-Scout active",
                   shared("meta-llama--Llama-4-Scout-17B-16E-Instruct").active_params(), 17, 1);
  // Qwen3.5's names give total and activated billions (Qwen/Qwen3.5-397B-A17B, -122B-A10B,
  // -35B-A3B, -27B; the vision encoder, not counted here, is a fraction of a billion).
  const ModelSpec qwen35 = shared("Qwen--Qwen3.5-397B-A17B");
  expect_published("Qwen3.5-397B-A17B total", qwen35.total_params(), 397, 1);
  expect_published("Qwen3.5-397B-A17B active", qwen35.active_params(), 17, 1);
  const ModelSpec qwen35_122 = shared("Qwen--Qwen3.5-122B-A10B");
  expect_published("Qwen3.5-122B-A10B total", qwen35_122.total_params(), 122, 1);
  expect_published("Qwen3.5-122B-A10B active", qwen35_122.active_params(), 10, 1);
  expect_published("Qwen3.5-35B-A3B total", shared("Qwen--Qwen3.5-35B-A3B").total_params(), 35, 1);
  expect_published("Qwen3.5-27B total", shared("Qwen--Qwen3.5-27B").total_params(), 27, 1);
}

// --- shapes read from the real configs ------------------------------------------------------

TEST(HfConfigShapes, DeepSeekV3IsMlaWith576CachedValuesPerLayer) {
  SKIP_WITHOUT_SHARED_CONFIGS();
  const ModelSpec m = shared("deepseek-ai--DeepSeek-V3");
  EXPECT_EQ(m.name, "deepseek-ai/DeepSeek-V3");
  EXPECT_EQ(m.architecture, "deepseek_v3");
  EXPECT_TRUE(m.is_mla());
  EXPECT_EQ(m.kv_values_per_token_per_layer(), 576);  // kv_lora_rank 512 + qk_rope_head_dim 64
  EXPECT_EQ(m.num_layers * m.kv_values_per_token_per_layer() * 2, 70272);  // bytes/token, bf16
  EXPECT_EQ(m.num_heads, 128);
  EXPECT_EQ(m.num_kv_heads, 128);
  EXPECT_EQ(m.head_dim, 192);
  EXPECT_EQ(m.mla.q_lora_rank, 1536);
  EXPECT_EQ(m.mla.kv_lora_rank, 512);
  EXPECT_EQ(m.mla.qk_nope_head_dim, 128);
  EXPECT_EQ(m.mla.qk_rope_head_dim, 64);
  EXPECT_EQ(m.mla.v_head_dim, 128);
  EXPECT_EQ(m.num_dense_layers, 3);
  EXPECT_EQ(m.num_moe_layers(), 58);
  EXPECT_EQ(m.num_experts, 256);
  EXPECT_EQ(m.num_active_experts, 8);
  EXPECT_EQ(m.num_shared_experts, 1);
  EXPECT_EQ(m.moe_intermediate, 2048);
  EXPECT_EQ(m.intermediate, 18432);
  EXPECT_EQ(m.max_position, 163840);
  EXPECT_TRUE(m.layer_attention.empty());
  EXPECT_NE(m.notes.find("multi-token-prediction"), std::string::npos) << m.notes;
  EXPECT_EQ(m.quant.method, "fp8");
  EXPECT_EQ(m.quant.dtype, DType::fp8);
  EXPECT_DOUBLE_EQ(m.quant.scale_bytes_per_weight, 4.0 / (128 * 128));
  EXPECT_TRUE(m.quant.attention && m.quant.dense_mlp && m.quant.experts && m.quant.shared_experts);
}

TEST(HfConfigShapes, GptOss120bAlternatesSlidingAndFullLayers) {
  SKIP_WITHOUT_SHARED_CONFIGS();
  const ModelSpec m = shared("openai--gpt-oss-120b");
  EXPECT_EQ(m.num_layers, 36);
  EXPECT_EQ(m.num_sliding_layers(), 18);
  EXPECT_EQ(m.num_full_layers(), 18);
  EXPECT_EQ(m.sliding_window, 128);
  EXPECT_EQ(m.layer_attention.at(0), LayerAttention::sliding);
  EXPECT_EQ(m.layer_attention.at(1), LayerAttention::full);
  EXPECT_EQ(m.kv_values_per_token_per_layer(), 2 * 8 * 64);
  EXPECT_EQ(m.num_experts, 128);
  EXPECT_EQ(m.num_active_experts, 4);
  EXPECT_EQ(m.moe_intermediate, 2880);
  EXPECT_TRUE(m.attention_bias);
  EXPECT_EQ(m.quant.method, "mxfp4");
  EXPECT_EQ(m.quant.dtype, DType::fp4);
  EXPECT_DOUBLE_EQ(m.quant.scale_bytes_per_weight, 1.0 / 32);
  EXPECT_FALSE(m.quant.attention);  // model.layers.*.self_attn
  EXPECT_TRUE(m.quant.experts);
  EXPECT_EQ(m.quant.not_converted.size(), 4u);
}

TEST(HfConfigShapes, Qwen35InterleavesThreeLinearLayersWithOneGatedFullLayer) {
  SKIP_WITHOUT_SHARED_CONFIGS();
  const ModelSpec m = shared("Qwen--Qwen3.5-397B-A17B");
  EXPECT_EQ(m.num_layers, 60);
  EXPECT_EQ(m.num_linear_layers(), 45);
  EXPECT_EQ(m.num_full_layers(), 15);
  EXPECT_EQ(m.layer_attention[0], LayerAttention::linear);
  EXPECT_EQ(m.layer_attention[3], LayerAttention::full);
  EXPECT_TRUE(m.attention_output_gate);
  EXPECT_EQ(m.linear.num_key_heads, 16);
  EXPECT_EQ(m.linear.num_value_heads, 64);
  EXPECT_EQ(m.num_experts, 512);
  EXPECT_EQ(m.num_active_experts, 10);
  EXPECT_EQ(m.num_shared_experts, 1);
  EXPECT_EQ(m.shared_expert_width(), 1024);
  Deployment tp8;
  tp8.tp = 8;
  // Per GPU at tp 8: 15 full layers x K and V x 1 replicated KV head x 256 x 2 bytes; 45 linear
  // layers x (8 value heads x 128 x 128 x 4 bytes + 1,536 convolution channels x 3 x 2 bytes).
  EXPECT_DOUBLE_EQ(kv_bytes_per_token_per_gpu(m, tp8), 15 * 2 * 256 * 2.0);
  EXPECT_DOUBLE_EQ(recurrent_state_bytes_per_seq_per_gpu(m, tp8), 45 * (524288.0 + 9216.0));
}

TEST(HfConfigShapes, Llama31KeepsItsLongContext) {
  SKIP_WITHOUT_SHARED_CONFIGS();
  const ModelSpec m = shared("meta-llama--Meta-Llama-3.1-8B");
  EXPECT_EQ(m.max_position, 131072);
  EXPECT_EQ(m.num_kv_heads, 8);
  EXPECT_EQ(m.head_dim, 128);  // hidden_size / num_attention_heads: no head_dim in the file
  EXPECT_TRUE(m.layer_attention.empty());
  EXPECT_EQ(m.quant.method, "");
}

TEST(HfConfigShapes, Llama4InterleavesExpertsAndChunksTheRopeLayers) {
  SKIP_WITHOUT_SHARED_CONFIGS();
  const ModelSpec scout = shared("meta-llama--Llama-4-Scout-17B-16E-Instruct");
  EXPECT_EQ(scout.architecture, "llama4");
  EXPECT_EQ(scout.num_moe_layers(), 48);  // interleave_moe_layer_step 1
  EXPECT_EQ(scout.num_experts, 16);
  EXPECT_EQ(scout.num_active_experts, 1);
  EXPECT_EQ(scout.num_shared_experts, 1);
  EXPECT_EQ(scout.moe_intermediate, 8192);
  EXPECT_EQ(scout.num_sliding_layers(), 36);  // every 4th layer is NoPE and global
  EXPECT_EQ(scout.num_full_layers(), 12);
  EXPECT_EQ(scout.sliding_window, 8192);  // attention_chunk_size
  EXPECT_EQ(scout.layer_attention.at(2), LayerAttention::sliding);
  EXPECT_EQ(scout.layer_attention.at(3), LayerAttention::full);
  EXPECT_NE(scout.notes.find("chunked local attention"), std::string::npos) << scout.notes;
  const ModelSpec maverick = shared("meta-llama--Llama-4-Maverick-17B-128E-Instruct");
  EXPECT_EQ(maverick.num_moe_layers(), 24);  // interleave_moe_layer_step 2: layers 1, 3, ...
  EXPECT_EQ(maverick.num_dense_layers, 24);
  EXPECT_EQ(maverick.intermediate, 16384);  // intermediate_size_mlp
  EXPECT_EQ(maverick.num_experts, 128);
  EXPECT_EQ(maverick.layer_attention, scout.layer_attention);
}

TEST(HfConfigShapes, VisionLanguageWrappersReadTheirTextModel) {
  SKIP_WITHOUT_SHARED_CONFIGS();
  const ModelSpec text = shared("Qwen--Qwen3-30B-A3B");
  const ModelSpec vl = shared("Qwen--Qwen3-VL-30B-A3B-Instruct");
  EXPECT_EQ(vl.architecture, "qwen3_vl_moe");
  for (const ModelSpec* m : {&text, &vl}) {
    EXPECT_EQ(m->num_layers, 48);
    EXPECT_EQ(m->num_experts, 128);
    EXPECT_EQ(m->num_active_experts, 8);
    EXPECT_EQ(m->moe_intermediate, 768);
    EXPECT_TRUE(m->qk_norm);
  }
  EXPECT_EQ(vl.max_position, 262144);
  EXPECT_NE(vl.notes.find("vision encoder"), std::string::npos);
  EXPECT_TRUE(shared("Qwen--Qwen3-VL-2B-Instruct").tied_embeddings);
  const ModelSpec kimi25 = shared("moonshotai--Kimi-K2.5");  // text_config of model_type kimi_k2
  EXPECT_TRUE(kimi25.is_mla());
  EXPECT_EQ(kimi25.num_experts, 384);
  EXPECT_EQ(kimi25.num_dense_layers, 1);
}

// --- quantization -------------------------------------------------------------------------

TEST(HfConfigArchitectures, TakeOnlyTheConfigClassesDefaults) {
  json c = llama_config();
  c.erase("num_key_value_heads");
  const ModelSpec mha = parse_hf_config(c, "t");
  EXPECT_EQ(mha.num_kv_heads, 32);  // LlamaConfig: num_key_value_heads = num_attention_heads
  EXPECT_EQ(mha.head_dim, 128);     // hidden_size / num_attention_heads
  EXPECT_FALSE(mha.tied_embeddings);
  c["model_type"] = "mistral";
  EXPECT_EQ(parse_hf_config(c, "t").num_sliding_layers(), 32);  // MistralConfig: window 4096
  EXPECT_EQ(parse_hf_config(c, "t").sliding_window, 4096);
  c["sliding_window"] = nullptr;
  EXPECT_TRUE(parse_hf_config(c, "t").layer_attention.empty());
  c["sliding_window"] = 2048;
  EXPECT_EQ(parse_hf_config(c, "t").sliding_window, 2048);
}

TEST(HfConfigArchitectures, Qwen2HasBiasesAndSlidesAfterMaxWindowLayers) {
  json c = llama_config();
  c["model_type"] = "qwen2";
  c["num_hidden_layers"] = 28;
  EXPECT_TRUE(parse_hf_config(c, "t").attention_bias);
  EXPECT_TRUE(parse_hf_config(c, "t").layer_attention.empty());  // use_sliding_window false
  c["use_sliding_window"] = true;
  c["sliding_window"] = 4096;
  c["max_window_layers"] = 20;
  const ModelSpec m = parse_hf_config(c, "t");
  EXPECT_EQ(m.num_sliding_layers(), 8);
  EXPECT_EQ(m.layer_attention.at(19), LayerAttention::full);
  EXPECT_EQ(m.layer_attention.at(20), LayerAttention::sliding);
}

TEST(HfConfigArchitectures, GemmaFamiliesTieEmbeddingsAndSlideByTheirPatterns) {
  // google/gemma-2-9b's config.json values.
  const json gemma2 = {{"model_type", "gemma2"},          {"hidden_size", 3584},
                       {"num_hidden_layers", 42},         {"num_attention_heads", 16},
                       {"num_key_value_heads", 8},        {"head_dim", 256},
                       {"intermediate_size", 14336},      {"vocab_size", 256000},
                       {"max_position_embeddings", 8192}, {"sliding_window", 4096}};
  const ModelSpec g2 = parse_hf_config(gemma2, "t");
  EXPECT_TRUE(g2.tied_embeddings);  // Gemma2Config's default
  EXPECT_TRUE(g2.gated_mlp);
  EXPECT_EQ(g2.num_sliding_layers(), 21);
  EXPECT_EQ(g2.layer_attention.at(0), LayerAttention::sliding);
  EXPECT_EQ(g2.layer_attention.at(1), LayerAttention::full);
  json text = gemma2;
  text["model_type"] = "gemma3_text";
  text["num_hidden_layers"] = 62;
  text["sliding_window"] = 1024;
  const json gemma3 = {{"model_type", "gemma3"}, {"text_config", text}};
  const ModelSpec g3 = parse_hf_config(gemma3, "t");
  EXPECT_TRUE(g3.qk_norm);
  EXPECT_EQ(g3.num_full_layers(), 10);  // layers 5, 11, ..., 59: sliding_window_pattern 6
  EXPECT_EQ(g3.layer_attention.at(5), LayerAttention::full);
  EXPECT_EQ(g3.sliding_window, 1024);
  text["sliding_window_pattern"] = 2;
  EXPECT_EQ(
      parse_hf_config({{"model_type", "gemma3"}, {"text_config", text}}, "t").num_full_layers(),
      31);
  text["num_hidden_layers"] = 2;
  text["layer_types"] = {"full_attention", "sliding_attention"};
  const ModelSpec typed = parse_hf_config(text, "t");
  EXPECT_EQ(typed.layer_attention.at(0), LayerAttention::full);
  EXPECT_EQ(typed.layer_attention.at(1), LayerAttention::sliding);
  json gemma = gemma2;
  gemma["model_type"] = "gemma";
  EXPECT_TRUE(parse_hf_config(gemma, "t").layer_attention.empty());
}

TEST(HfConfigArchitectures, Qwen3MoeDenseLayersFollowMlpOnlyLayersAndSparseStep) {
  json c = llama_config();
  c["model_type"] = "qwen3_moe";
  c["head_dim"] = 128;
  c["num_hidden_layers"] = 8;
  c["num_experts"] = 16;
  c["num_experts_per_tok"] = 2;
  c["moe_intermediate_size"] = 768;
  c["mlp_only_layers"] = {0, 1};
  EXPECT_EQ(parse_hf_config(c, "t").num_dense_layers, 2);
  c["mlp_only_layers"] = json::array();
  c["decoder_sparse_step"] = 2;
  EXPECT_EQ(parse_hf_config(c, "t").num_dense_layers, 4);  // MoE on layers 1, 3, 5, 7
}

TEST(HfConfigArchitectures, MlaWithoutQueryCompression) {
  const json c = {{"model_type", "deepseek_v3"},
                  {"hidden_size", 2048},
                  {"num_hidden_layers", 4},
                  {"num_attention_heads", 16},
                  {"q_lora_rank", nullptr},
                  {"kv_lora_rank", 512},
                  {"qk_nope_head_dim", 128},
                  {"qk_rope_head_dim", 64},
                  {"v_head_dim", 128},
                  {"n_routed_experts", 64},
                  {"n_shared_experts", 2},
                  {"num_experts_per_tok", 6},
                  {"moe_intermediate_size", 1408},
                  {"first_k_dense_replace", 1},
                  {"intermediate_size", 10944},
                  {"vocab_size", 102400},
                  {"max_position_embeddings", 163840}};
  const ModelSpec m = parse_hf_config(c, "t");
  EXPECT_EQ(m.mla.q_lora_rank, 0);
  EXPECT_EQ(m.num_dense_layers, 1);
  EXPECT_EQ(m.kv_values_per_token_per_layer(), 576);
  json absent = c;
  absent.erase("q_lora_rank");
  EXPECT_EQ(error_of(absent), kWhere + "q_lora_rank: absent (null for no compression)");
}

// --- resolve_model --------------------------------------------------------------------------

}  // namespace
}  // namespace tidal::perf
