// Hybrids of Gated DeltaNet linear attention and gated full attention (Qwen3-Next, Qwen3.5): the
// config reader, parameter counts, the memory plan's recurrent-state reserve, and the roofline's
// price of the linear layers. One tiny config (tiny_hybrid_config.h), its figures worked out by
// hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "perf/hf_config.h"
#include "perf/memory_plan.h"
#include "perf/roofline_costs.h"
#include "perf/step_costs.h"
#include "tests/perf/tiny_hybrid_config.h"

namespace tidal::perf {
namespace {

using nlohmann::json;

using test::tiny_hybrid_config;

ModelSpec parse(const json& config) {
  ModelSpec m = parse_hf_config(config, "tiny_config.json");
  m.name = "tiny";
  return m;
}

std::string error_of(const json& config) {
  try {
    parse(config);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(LinearAttentionConfig, EveryFourthLayerIsFullWhenLayerTypesAreAbsent) {
  const ModelSpec m = parse(tiny_hybrid_config());
  ASSERT_EQ(m.layer_attention.size(), 8u);
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(m.layer_attention[i], i % 4 == 3 ? LayerAttention::full : LayerAttention::linear)
        << i;
  }
  EXPECT_EQ(m.num_linear_layers(), 6);
  EXPECT_EQ(m.num_full_layers(), 2);
  EXPECT_EQ(m.num_attention_layers(), 2);
  EXPECT_TRUE(m.attention_output_gate);
  EXPECT_TRUE(m.qk_norm);
  EXPECT_EQ(m.linear.conv_width(), 2 * 64 + 128);
  EXPECT_EQ(m.linear.state_dtype, DType::fp32);  // mamba_ssm_dtype absent

  json typed = tiny_hybrid_config();
  typed["layer_types"] = {"full_attention",   "linear_attention", "linear_attention",
                          "linear_attention", "full_attention",   "linear_attention",
                          "linear_attention", "linear_attention"};
  typed["mamba_ssm_dtype"] = "bfloat16";
  const ModelSpec listed = parse(typed);
  EXPECT_EQ(listed.layer_attention[0], LayerAttention::full);
  EXPECT_EQ(listed.layer_attention[3], LayerAttention::linear);
  EXPECT_EQ(listed.linear.state_dtype, DType::bf16);
}

TEST(LinearAttentionConfig, ParametersCountGatedQueriesAndTheLinearProjections) {
  const ModelSpec m = parse(tiny_hybrid_config());
  // Full layer: q and its gate 256 x 512, o 256 x 256, k and v 2 x 256 x 128.
  EXPECT_DOUBLE_EQ(m.attention_params_per_layer(), 262144.0);
  // Linear layer: q, k, v, z, b, a in 256 x (256 + 128 + 8), convolution 256 x 4, decay and
  // time-step bias 2 x 4, gated norm 32, out 128 x 256.
  EXPECT_DOUBLE_EQ(m.linear_attention_params_per_layer(), 134184.0);
  EXPECT_DOUBLE_EQ(m.mixer_params(), 2 * 262144.0 + 6 * 134184.0);
  // + MLPs 8 x 3 x 256 x 512, norms 8 x 2 x 256 + q/k norms of the 2 full layers 2 x 2 x 64 +
  // the final 256, untied embeddings 2 x 1000 x 256.
  EXPECT_DOUBLE_EQ(m.total_params(), 1329392.0 + 3145728.0 + 4608.0 + 512000.0);
}

TEST(LinearAttentionConfig, MissingOrUnknownKeysAreErrors) {
  json missing = tiny_hybrid_config();
  missing.erase("linear_num_value_heads");
  EXPECT_EQ(error_of(missing), "tiny_config.json: linear_num_value_heads: absent");
  json sliding = tiny_hybrid_config();
  sliding["num_hidden_layers"] = 2;
  sliding["layer_types"] = {"sliding_attention", "full_attention"};
  EXPECT_EQ(error_of(sliding),
            "tiny_config.json: layer_types[0]: \"sliding_attention\" layers are not supported in "
            "qwen3_5_text (tidal understands linear_attention and full_attention)");
  json dtype = tiny_hybrid_config();
  dtype["mamba_ssm_dtype"] = "int8";
  EXPECT_EQ(error_of(dtype),
            "tiny_config.json: mamba_ssm_dtype: \"int8\" is not a state dtype tidal knows "
            "(float32, bfloat16, float16)");
  json heads = tiny_hybrid_config();
  heads["linear_num_value_heads"] = 3;
  EXPECT_EQ(error_of(heads),
            "tiny_config.json: linear_num_key_heads 2 must divide linear_num_value_heads 3");
}

TEST(LinearAttentionMemory, KvCoversTheFullLayersAndStatesAreReservedPerSequence) {
  const ModelSpec m = parse(tiny_hybrid_config());
  const GpuSpec& gpu = find_gpu("H100-SXM", "t");
  Deployment d;
  d.max_num_seqs = 256;
  const MemoryPlan plan = plan_memory(m, gpu, d, "p");
  // 2 full layers x K and V x 2 heads x 64 x 2 bytes.
  EXPECT_DOUBLE_EQ(plan.kv_bytes_per_token_per_gpu, 1024.0);
  // 6 layers x (4 value heads x 32 x 32 fp32 + 256 convolution channels x 3 tokens x 2 bytes).
  EXPECT_DOUBLE_EQ(recurrent_state_bytes_per_seq_per_gpu(m, d), 107520.0);
  EXPECT_EQ(plan.num_state_slots, 256);
  EXPECT_DOUBLE_EQ(plan.state_reserve_bytes, 256 * 107520.0);
  EXPECT_EQ(plan.num_kv_blocks,
            static_cast<int64_t>((plan.kv_cache_bytes_per_gpu - plan.state_reserve_bytes) /
                                 (16 * 1024.0)));
  Deployment tp2 = d;
  tp2.tp = 2;  // heads split: 2 value heads and 128 channels per GPU
  EXPECT_DOUBLE_EQ(recurrent_state_bytes_per_seq_per_gpu(m, tp2), 6 * (8192.0 + 768.0));

  // SGLang's split: the states that fit in ratio / (1 + ratio) of the cache memory.
  Deployment split = d;
  split.state_memory_ratio = 1e-4;
  const MemoryPlan capped = plan_memory(m, gpu, split, "p");
  const auto expected =
      static_cast<int64_t>(capped.kv_cache_bytes_per_gpu * 1e-4 / (1 + 1e-4) / 107520.0);
  ASSERT_GT(expected, 0);
  ASSERT_LT(expected, 256);
  EXPECT_EQ(capped.num_state_slots, expected);
  EXPECT_DOUBLE_EQ(capped.state_reserve_bytes, static_cast<double>(expected) * 107520.0);

  Deployment none = d;
  none.state_memory_ratio = 1e-9;
  try {
    plan_memory(m, gpu, none, "scenario.json: fleet.pools[0]");
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "scenario.json: fleet.pools[0]: tiny has no room for one sequence's "
                  "recurrent state"),
              std::string::npos)
        << e.what();
  }
  Deployment tp4 = d;
  tp4.tp = 4;
  try {
    plan_memory(m, gpu, tp4, "scenario.json: fleet.pools[0]");
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "scenario.json: fleet.pools[0].tp: 4 does not divide linear_num_key_heads 2 of tiny");
  }
}

TEST(LinearAttentionRoofline, ProjectionsRunInTheirShareOfTheLayers) {
  const ModelSpec m = parse(tiny_hybrid_config());
  const RooflineCosts costs(m, find_gpu("H100-SXM", "t"), Deployment{}, RooflineOptions{});
  const double t = 10.0;
  // Full layers: q, gate, k, v = 256 -> 768; linear: q, k, v, z = 256 -> 384 and b, a 256 -> 8.
  const double full_flops = 2 * t * 256 * 768;
  const double linear_flops = 2 * t * 256 * 384 + 2 * t * 256 * 8;
  EXPECT_DOUBLE_EQ(costs.layer_work(OpClass::qkv_proj, 10).flops,
                   (2 * full_flops + 6 * linear_flops) / 8);
  EXPECT_DOUBLE_EQ(costs.layer_work(OpClass::o_proj, 10).flops,
                   (2 * (2 * t * 256 * 256) + 6 * (2 * t * 128 * 256)) / 8);
  EXPECT_EQ(layers_running(m, OpClass::rope), 2);
  EXPECT_EQ(layers_running(m, OpClass::qkv_proj), 8);
}

TEST(LinearAttentionRoofline, DecodeReadsAFixedStateWhateverTheContext) {
  const ModelSpec m = parse(tiny_hybrid_config());
  const RooflineCosts costs(m, find_gpu("H100-SXM", "t"), Deployment{}, RooflineOptions{});
  const std::vector<SeqWork> short_context{{1, 100, 1}};
  const std::vector<SeqWork> long_context{{1, 4000, 1}};
  const AttentionSeconds a = costs.linear_attention_seconds(short_context);
  const AttentionSeconds b = costs.linear_attention_seconds(long_context);
  EXPECT_GT(a.decode, 0.0);
  EXPECT_DOUBLE_EQ(a.decode, b.decode);
  EXPECT_EQ(a.prefill, 0.0);
  // The whole attention still grows with the context: the two full layers read their KV.
  EXPECT_GT(costs.attention_seconds(long_context).decode,
            costs.attention_seconds(short_context).decode);
  // A prefill chunk costs the linear layers more as it grows.
  const std::vector<SeqWork> chunk{{512, 0, 1}};
  const std::vector<SeqWork> longer_chunk{{2048, 0, 1}};
  EXPECT_GT(costs.linear_attention_seconds(longer_chunk).prefill,
            costs.linear_attention_seconds(chunk).prefill);
  EXPECT_EQ(costs.linear_attention_seconds(chunk).decode, 0.0);
  // A verification of 3 drafts: 4 tokens through the update over one read of the state.
  const LinearAttentionShape shape = linear_attention_shape(m, 1);
  const AttentionWork one = linear_attention_work(shape, short_context);
  const AttentionWork four = linear_attention_work(shape, std::vector<SeqWork>{{4, 100, 4}});
  EXPECT_DOUBLE_EQ(four.decode.flops, 4 * one.decode.flops);
  EXPECT_LT(four.decode.bytes, 4 * one.decode.bytes);
}

}  // namespace
}  // namespace tidal::perf
