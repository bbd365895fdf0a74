// Model config: Hugging Face config.json parsing (Llama 3, Mixtral), defaults, strict errors
// naming file and key, JSON round trip, presets and parameter counts.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "models/config.h"
#include "models/presets.h"
#include "tests/scratch_folder.h"

namespace tidal::models {
namespace {

nlohmann::json llama3_8b() {
  return nlohmann::json::parse(R"({
    "architectures": ["LlamaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
    "bos_token_id": 128000, "eos_token_id": 128001, "hidden_act": "silu", "hidden_size": 4096,
    "initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 131072,
    "mlp_bias": false, "model_type": "llama", "num_attention_heads": 32,
    "num_hidden_layers": 32, "num_key_value_heads": 8, "pretraining_tp": 1,
    "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
    "transformers_version": "4.43.0.dev0", "use_cache": true, "vocab_size": 128256})");
}

std::string error_of(const nlohmann::json& json) {
  try {
    parse_config(json, "dir/config.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Config, ParsesLlama3) {
  const ModelConfig c = parse_config(llama3_8b(), "config.json");
  EXPECT_EQ(c.vocab_size, 128256);
  EXPECT_EQ(c.hidden_size, 4096);
  EXPECT_EQ(c.intermediate_size, 14336);
  EXPECT_EQ(c.num_layers, 32);
  EXPECT_EQ(c.num_heads, 32);
  EXPECT_EQ(c.num_kv_heads, 8);
  EXPECT_EQ(c.head_dim, 128);  // hidden / heads when absent
  EXPECT_EQ(c.rms_eps, 1e-5);
  EXPECT_EQ(c.rope_theta, 500000.0);
  ASSERT_TRUE(c.rope_scaling.has_value());
  EXPECT_EQ(c.rope_scaling->factor, 8.0);
  EXPECT_EQ(c.rope_scaling->original_max_position_embeddings, 8192);
  EXPECT_FALSE(c.tie_word_embeddings);
  EXPECT_FALSE(c.is_moe());
  EXPECT_EQ(c.num_parameters(), 8030261248);  // Llama-3-8B
}

TEST(Config, ParsesMixtral) {
  nlohmann::json json = llama3_8b();
  json["model_type"] = "mixtral";
  json["intermediate_size"] = 14336;
  json["num_local_experts"] = 8;
  json["num_experts_per_tok"] = 2;
  json["vocab_size"] = 32000;
  json["max_position_embeddings"] = 32768;
  json["rope_theta"] = 1e6;
  json["rope_scaling"] = nullptr;
  json["sliding_window"] = nullptr;
  json["router_aux_loss_coef"] = 0.02;
  const ModelConfig c = parse_config(json, "config.json");
  EXPECT_TRUE(c.is_moe());
  EXPECT_EQ(c.num_local_experts, 8);
  EXPECT_EQ(c.num_experts_per_tok, 2);
  EXPECT_EQ(c.num_parameters(), 46702792704);  // Mixtral-8x7B
  EXPECT_EQ(c.num_active_parameters(), 12879925248);
}

TEST(Config, HfDefaults) {
  nlohmann::json json = llama3_8b();
  for (const char* key :
       {"num_key_value_heads", "rope_theta", "rope_scaling", "tie_word_embeddings", "head_dim"}) {
    json.erase(key);
  }
  const ModelConfig c = parse_config(json, "config.json");
  EXPECT_EQ(c.num_kv_heads, 32);
  EXPECT_EQ(c.rope_theta, 10000.0);
  EXPECT_FALSE(c.rope_scaling.has_value());
  EXPECT_FALSE(c.tie_word_embeddings);
}

TEST(Config, ErrorsNameFileAndKey) {
  nlohmann::json json = llama3_8b();
  json.erase("hidden_size");
  EXPECT_EQ(error_of(json), "dir/config.json: hidden_size: required key is missing");
  json = llama3_8b();
  json["num_attention_heads"] = "32";
  EXPECT_EQ(error_of(json),
            "dir/config.json: num_attention_heads: must be a positive integer (got \"32\")");
  json = llama3_8b();
  json["num_key_value_heads"] = 5;
  EXPECT_EQ(error_of(json),
            "dir/config.json: num_key_value_heads: must divide num_attention_heads (32), got 5");
  json = llama3_8b();
  json["model_type"] = "gpt2";
  EXPECT_NE(error_of(json).find(
                "dir/config.json: model_type: the engine's forward pass does not run model type "
                "\"gpt2\""),
            std::string::npos);
  json = llama3_8b();
  json["model_type"] = "mistral";  // Llama's architecture without a sliding window
  EXPECT_EQ(error_of(json), "no error");
  json["sliding_window"] = 4096;
  EXPECT_NE(error_of(json).find("sliding_window: sliding-window attention is not supported"),
            std::string::npos);
  json = llama3_8b();
  json["rope_scaling"]["rope_type"] = "yarn";
  EXPECT_NE(error_of(json).find("rope_scaling.rope_type: unsupported rope scaling \"yarn\""),
            std::string::npos);
  json = llama3_8b();
  json["rope_scaling"].erase("factor");
  EXPECT_EQ(error_of(json), "dir/config.json: rope_scaling.factor: required key is missing");
  json = llama3_8b();
  json["rms_norm_eps"] = -1;
  EXPECT_NE(error_of(json).find("rms_norm_eps: must be a positive number"), std::string::npos);
  json = llama3_8b();
  json["attention_bias"] = true;
  EXPECT_NE(error_of(json).find("attention_bias: biases are not supported"), std::string::npos);
  json = llama3_8b();
  json["head_dim"] = 127;
  EXPECT_NE(error_of(json).find("head_dim: must be even"), std::string::npos);
  json = llama3_8b();
  json["model_type"] = "mixtral";
  EXPECT_EQ(error_of(json), "dir/config.json: num_local_experts: required key is missing");
  json["num_local_experts"] = 2;
  json["num_experts_per_tok"] = 3;
  EXPECT_NE(error_of(json).find("num_experts_per_tok: must not exceed num_local_experts (2)"),
            std::string::npos);
  EXPECT_THROW(parse_config(nlohmann::json::array(), "x"), InputError);
}

TEST(Config, JsonRoundTrip) {
  for (const std::string& name : preset_names()) {
    const ModelConfig c = *find_preset(name);
    EXPECT_EQ(parse_config(config_to_json(c), name), c) << name;
  }
  const ModelConfig llama = parse_config(llama3_8b(), "x");
  EXPECT_EQ(parse_config(config_to_json(llama), "x"), llama);
}

TEST(Config, LoadFromFileAndResolve) {
  const ScratchFolder scratch("tidal_config_test", "load");
  const std::filesystem::path& dir = scratch.path();
  {
    std::ofstream out(dir / "config.json");
    out << llama3_8b().dump();
  }
  EXPECT_EQ(load_config(dir / "config.json").hidden_size, 4096);
  EXPECT_EQ(resolve_config(dir.string(), "--config").hidden_size, 4096);
  EXPECT_EQ(resolve_config((dir / "config.json").string(), "--config").num_layers, 32);
  EXPECT_EQ(resolve_config("tiny", "--config"), *find_preset("tiny"));
  {
    std::ofstream out(dir / "config.json");
    out << "{not json";
  }
  EXPECT_THROW(load_config(dir / "config.json"), InputError);
  try {
    resolve_config("no-such-model", "--config");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--config: 'no-such-model' is neither a preset (tiny, tiny-llama3, tiny-moe, "
              "small-100m) nor a config.json file or checkpoint folder");
  }
}

TEST(Config, Presets) {
  for (const std::string& name : preset_names()) {
    const ModelConfig c = *find_preset(name);
    EXPECT_NO_THROW(validate_config(c, name));
  }
  EXPECT_EQ(find_preset("small-100m")->num_parameters(), 100092672);
  EXPECT_TRUE(find_preset("tiny-moe")->is_moe());
  EXPECT_FALSE(find_preset("nope").has_value());
}

}  // namespace
}  // namespace tidal::models
