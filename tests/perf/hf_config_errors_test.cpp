// One clear error per bad config: the key and the config named, refused architectures saying
// why, malformed files.
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

TEST(HfConfigErrors, NameTheKeyAndTheConfig) {
  json c = llama_config();
  c.erase("hidden_size");
  EXPECT_EQ(error_of(c), kWhere + "hidden_size: absent");
  c = llama_config();
  c["num_key_value_heads"] = 5;
  EXPECT_EQ(error_of(c), kWhere + "num_key_value_heads: 5 does not divide num_attention_heads 32");
  c = llama_config();
  c["hidden_size"] = "4096";
  EXPECT_EQ(error_of(c), kWhere + "hidden_size: expected a number, got string");
  c = llama_config();
  c["model_type"] = "foo";
  std::string understood;
  for (const std::string& t : supported_model_types())
    understood += (understood.empty() ? "" : ", ") + t;
  EXPECT_EQ(error_of(c), kWhere +
                             "model_type: unsupported model type \"foo\" (tidal understands: " +
                             understood + ")");
  c = llama_config();
  c["hidden_size"] = 4100;
  EXPECT_EQ(error_of(c), kWhere +
                             "head_dim: absent and not derivable: hidden_size 4100 is not a "
                             "multiple of num_attention_heads 32");
  c = mixtral_config();
  c["num_experts_per_tok"] = 9;
  EXPECT_EQ(error_of(c), kWhere + "num_experts_per_tok: 9 exceeds num_local_experts 8");
  c = llama_config();
  c["quantization_config"] = {{"quant_method", "foo"}};
  EXPECT_EQ(error_of(c), kWhere +
                             "quantization_config.quant_method: unsupported quantization "
                             "method \"foo\" (tidal understands fp8, mxfp4, fbgemm_fp8, awq, "
                             "gptq, compressed-tensors, modelopt)");
  c = llama_config();
  c["model_type"] = "qwen3";
  EXPECT_EQ(error_of(c), kWhere +
                             "head_dim: absent (qwen3 configs give it; tidal assumes no "
                             "default)");
  c = llama_config();
  c["num_hidden_layers"] = 0;
  EXPECT_EQ(error_of(c), kWhere + "num_hidden_layers: must be >= 1 (got 0)");
  c = llama_config();
  c["max_position_embeddings"] = 8192.5;
  EXPECT_EQ(error_of(c), kWhere + "max_position_embeddings: expected a whole number, got 8192.5");
}

TEST(HfConfigErrors, NestedAndRefusedArchitecturesSayWhy) {
  const json llama4 = {{"model_type", "llama4"}};
  EXPECT_EQ(error_of(llama4), kWhere + "text_config: absent");
  json nested = {{"model_type", "llama4"}, {"text_config", llama_config()}};
  nested["text_config"].erase("vocab_size");
  nested["text_config"]["model_type"] = "llama4_text";
  nested["text_config"]["head_dim"] = 128;
  nested["text_config"]["num_local_experts"] = 16;
  nested["text_config"]["num_experts_per_tok"] = 1;
  EXPECT_EQ(error_of(nested), kWhere + "text_config.vocab_size: absent");
  const std::string gemma4 = error_of({{"model_type", "gemma4"}});
  EXPECT_EQ(gemma4.rfind(kWhere + "model_type: unsupported model type \"gemma4\": ", 0), 0u)
      << gemma4;
  EXPECT_NE(gemma4.find("global_head_dim"), std::string::npos);
  json oss = llama_config();
  oss["model_type"] = "gpt_oss";
  oss["head_dim"] = 128;
  oss["num_local_experts"] = 8;
  oss["num_experts_per_tok"] = 2;
  oss["num_hidden_layers"] = 2;
  oss["layer_types"] = {"sliding_attention", "linear_attention"};
  EXPECT_EQ(error_of(oss), kWhere +
                               "layer_types[1]: \"linear_attention\" layers are not supported "
                               "(tidal understands full_attention, sliding_attention and "
                               "chunked_attention)");
  EXPECT_EQ(
      error_of({{"hidden_size", 1}}).rfind(kWhere + "model_type: absent (tidal understands: ", 0),
      0u);
  EXPECT_EQ(error_of(json::array()),
            "scenario.json: fleet.pools[0].model: expected a JSON object, "
            "got array");
}

TEST(HfConfigFiles, NameMalformedFilesAndReadPythonConstants) {
  const TempDir dir;
  const fs::path bad = dir.write("bad_config.json", "{\"model_type\": \"llama\", }");
  try {
    load_hf_config(bad);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(bad.string() + ": not valid JSON: ", 0), 0u) << e.what();
  }
  json c = llama_config();
  c["initializer_range"] = 0.0;
  std::string text = c.dump();
  text.replace(text.find("0.0"), 3, "Infinity");
  const ModelSpec m = load_hf_config(dir.write("acme--tiny_config.json", text));
  EXPECT_EQ(m.name, "acme/tiny");
  EXPECT_EQ(read_hf_json_file(dir.path() / "acme--tiny_config.json")["initializer_range"], nullptr);
  EXPECT_THROW(load_hf_config(dir.path() / "missing"), InputError);
}

// --- architectures from Hugging Face's documented keys (inline configs) -------------------

}  // namespace
}  // namespace tidal::perf
