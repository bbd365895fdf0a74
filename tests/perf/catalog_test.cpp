// The model catalog: every entry complete and sourced, lookups, parameter counts, entries checked
// against the real Hugging Face configs; dtypes. The GPU
// catalog has its own suite (gpu_catalog_test.cpp).
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <iostream>
#include <set>

#include "base/input_error.h"
#include "perf/dtype.h"
#include "perf/hf_config.h"
#include "perf/model_catalog.h"

namespace tidal::perf {
namespace {

TEST(ModelCatalog, HoldsTheRequiredModels) {
  for (const char* name :
       {"llama-3-8b",     "llama-3-70b",     "llama-3.1-8b",    "llama-3.1-70b",
        "llama-3.1-405b", "llama-3.3-70b",   "llama-3.2-1b",    "llama-3.2-3b",
        "llama-2-7b",     "llama-2-70b",     "llama-4-scout",   "llama-4-maverick",
        "qwen2.5-7b",     "qwen2.5-72b",     "qwen3-8b",        "qwen3-32b",
        "qwen3-30b-a3b",  "qwen3-235b-a22b", "mistral-7b-v0.3", "mistral-small-24b",
        "mixtral-8x7b",   "gemma-2-9b",      "gpt-oss-20b",     "gpt-oss-120b",
        "deepseek-v3",    "deepseek-r1",     "kimi-k2",         "codellama-34b",
        "qwen-72b",       "internlm-20b",    "phi-2",           "tiny-llama-15m",
        "tiny-llama-42m", "tiny-llama-110m"}) {
    SCOPED_TRACE(name);
    const ModelSpec& m = find_model(name, "test");
    EXPECT_EQ(m.name, name);
    EXPECT_FALSE(m.architecture.empty());
    EXPECT_GT(m.total_params(), 0.0);
    EXPECT_FALSE(m.source.empty());
    EXPECT_FALSE(m.aliases.empty());
  }
  EXPECT_EQ(model_names().size(), 34u);
  const std::vector<ModelListing> listings = model_listings();
  ASSERT_EQ(listings.size(), model_names().size());
  EXPECT_EQ(listings[0].name, model_names()[0]);
  for (const ModelListing& listing : listings) {
    EXPECT_EQ(listing.max_position, find_model(listing.name, "t").max_position) << listing.name;
    EXPECT_EQ(listing.source, find_model(listing.name, "t").source) << listing.name;
  }
}

TEST(ModelCatalog, NamesAndAliasesEachNameOneCheckpoint) {
  std::set<std::string> seen;
  for (const std::string& name : model_names()) {
    const ModelSpec& m = find_model(name, "t");
    for (const std::string& key : m.aliases) {
      std::string lower;
      for (char c : key) lower.push_back(static_cast<char>(std::tolower(c)));
      EXPECT_TRUE(seen.insert(lower).second) << key << " names two entries";
      EXPECT_EQ(&find_model(key, "t"), &m) << key;
    }
    EXPECT_TRUE(seen.insert(name).second) << name;
  }
  // Llama 3.1 is its own checkpoint, with its own context: no longer an alias of Llama 3.
  EXPECT_EQ(find_model("llama-3.1-8b", "t").max_position, 131072);
  EXPECT_EQ(find_model("llama-3.1-70b", "t").max_position, 131072);
  EXPECT_EQ(find_model("llama-3.1-405b", "t").max_position, 131072);
  EXPECT_EQ(find_model("llama-3.3-70b", "t").max_position, 131072);
  EXPECT_EQ(find_model("llama-3-8b", "t").max_position, 8192);
  EXPECT_EQ(find_model("meta-llama/Meta-Llama-3.1-8B", "t").name, "llama-3.1-8b");
}

TEST(ModelCatalog, ParameterCountsMatchPublishedSizes) {
  EXPECT_NEAR(find_model("llama-3-8b", "t").total_params() / 1e9, 8.03, 0.01);
  EXPECT_NEAR(find_model("llama-2-70b", "t").total_params() / 1e9, 68.98, 0.01);
  EXPECT_NEAR(find_model("llama-2-7b", "t").total_params() / 1e9, 6.74, 0.01);
  EXPECT_NEAR(find_model("llama-3.2-1b", "t").total_params() / 1e9, 1.24, 0.01);  // HF card
  EXPECT_NEAR(find_model("llama-3.2-3b", "t").total_params() / 1e9, 3.21, 0.01);  // HF card
  const ModelSpec& mixtral = find_model("mixtral-8x7b", "t");
  EXPECT_NEAR(mixtral.total_params() / 1e9, 46.7, 0.1);
  EXPECT_NEAR(mixtral.active_params() / 1e9, 12.9, 0.1);
  // DeepSeek-V3 report (arXiv:2412.19437): 671B total, 37B active (without the input embedding).
  const ModelSpec& deepseek = find_model("deepseek-v3", "t");
  EXPECT_TRUE(deepseek.is_mla());
  EXPECT_EQ(deepseek.kv_values_per_token_per_layer(), 576);
  EXPECT_NEAR(deepseek.total_params() / 1e9, 671, 1);
  EXPECT_NEAR(deepseek.active_params_without_embedding() / 1e9, 37, 0.5);
  EXPECT_NEAR(find_model("tiny-llama-15m", "t").total_params() / 1e6, 15.2, 0.1);
  EXPECT_NEAR(find_model("tiny-llama-110m", "t").total_params() / 1e6, 110, 1);
  EXPECT_EQ(find_model("llama-3-8b", "t").total_params(),
            find_model("llama-3-8b", "t").active_params());
}

TEST(ModelCatalog, LooksUpHuggingFaceNames) {
  EXPECT_EQ(find_model("meta-llama/Llama-2-70b-hf", "t").name, "llama-2-70b");
  EXPECT_EQ(find_model("Llama-2-70B-HF", "t").name, "llama-2-70b");
  EXPECT_EQ(find_model("openai/gpt-oss-120b", "t").name, "gpt-oss-120b");
  EXPECT_EQ(lookup_model("gpt-5"), nullptr);
  EXPECT_THROW(find_model("gpt-5", "x"), InputError);
}

// Every entry whose checkpoint is in shared/models/hf-configs (an alias "<org>/<name>" with a
// file "<org>--<name>_config.json") reads exactly as that file does.
TEST(ModelCatalog, EntriesMatchTheRealConfigs) {
  const std::filesystem::path dir =
      std::filesystem::path(TIDAL_SHARED_DIR) / "models" / "hf-configs";
  if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << "no shared configs at " << dir;
  int checked = 0;
  for (const std::string& name : model_names()) {
    const ModelSpec& entry = find_model(name, "t");
    for (const std::string& alias : entry.aliases) {
      const std::size_t slash = alias.find('/');
      if (slash == std::string::npos) continue;
      const std::filesystem::path file =
          dir / (alias.substr(0, slash) + "--" + alias.substr(slash + 1) + "_config.json");
      if (!std::filesystem::exists(file)) continue;
      SCOPED_TRACE(name + " vs " + file.filename().string());
      const ModelSpec real = load_hf_config(file);
      EXPECT_EQ(entry.architecture, real.architecture);
      EXPECT_EQ(entry.num_layers, real.num_layers);
      EXPECT_EQ(entry.hidden, real.hidden);
      EXPECT_EQ(entry.num_heads, real.num_heads);
      EXPECT_EQ(entry.num_kv_heads, real.num_kv_heads);
      EXPECT_EQ(entry.head_dim, real.head_dim);
      EXPECT_EQ(entry.intermediate, real.intermediate);
      EXPECT_EQ(entry.vocab, real.vocab);
      EXPECT_EQ(entry.gated_mlp, real.gated_mlp);
      EXPECT_EQ(entry.qk_norm, real.qk_norm);
      EXPECT_EQ(entry.attention_bias, real.attention_bias);
      EXPECT_EQ(entry.attention, real.attention);
      EXPECT_EQ(entry.mla.q_lora_rank, real.mla.q_lora_rank);
      EXPECT_EQ(entry.mla.kv_lora_rank, real.mla.kv_lora_rank);
      EXPECT_EQ(entry.mla.qk_nope_head_dim, real.mla.qk_nope_head_dim);
      EXPECT_EQ(entry.mla.qk_rope_head_dim, real.mla.qk_rope_head_dim);
      EXPECT_EQ(entry.mla.v_head_dim, real.mla.v_head_dim);
      EXPECT_EQ(entry.layer_attention, real.layer_attention);
      EXPECT_EQ(entry.sliding_window, real.sliding_window);
      EXPECT_EQ(entry.num_experts, real.num_experts);
      EXPECT_EQ(entry.num_active_experts, real.num_active_experts);
      EXPECT_EQ(entry.num_shared_experts, real.num_shared_experts);
      EXPECT_EQ(entry.moe_intermediate, real.moe_intermediate);
      EXPECT_EQ(entry.shared_expert_intermediate, real.shared_expert_intermediate);
      EXPECT_EQ(entry.num_dense_layers, real.num_dense_layers);
      EXPECT_EQ(entry.tied_embeddings, real.tied_embeddings);
      EXPECT_EQ(entry.max_position, real.max_position);
      EXPECT_EQ(entry.quant.method, real.quant.method);
      EXPECT_EQ(entry.quant.dtype, real.quant.dtype);
      EXPECT_EQ(entry.quant.scale_bytes_per_weight, real.quant.scale_bytes_per_weight);
      EXPECT_EQ(entry.quant.attention, real.quant.attention);
      EXPECT_EQ(entry.quant.experts, real.quant.experts);
      EXPECT_EQ(entry.quant.not_converted, real.quant.not_converted);
      ++checked;
    }
  }
  std::cout << checked << " catalog entries checked against the real configs\n";
  EXPECT_EQ(checked, 15);
}

TEST(DType, ParsesAndSizes) {
  EXPECT_EQ(parse_dtype("fp8", "p"), DType::fp8);
  EXPECT_EQ(dtype_bytes(DType::bf16), 2.0);
  EXPECT_EQ(dtype_bytes(DType::int4), 0.5);
  EXPECT_EQ(dtype_name(DType::int8), "int8");
  try {
    parse_dtype("fp9", "fleet.pools[0].kv_dtype");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "fleet.pools[0].kv_dtype: unknown dtype \"fp9\"; expected one of fp32, bf16, fp16, "
              "fp8, int8, int4, fp4");
  }
}

}  // namespace
}  // namespace tidal::perf
