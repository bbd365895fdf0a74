// Memory and time of the attention kinds beyond GQA: multi-head latent attention (DeepSeek-V3's
// dimensions) and sliding-window layers (gpt-oss-120b's), plus checkpoint quantization formats.
// The specs are written out here so the figures do not depend on the catalog.
#include <gtest/gtest.h>

#include <vector>

#include "perf/gpu_catalog.h"
#include "perf/memory_plan.h"
#include "perf/model_describe.h"
#include "perf/roofline_attention.h"
#include "perf/roofline_costs.h"
#include "perf/weight_formats.h"

namespace tidal::perf {
namespace {

// DeepSeek-V3's config.json (deepseek-ai/DeepSeek-V3).
ModelSpec deepseek_v3() {
  ModelSpec m;
  m.name = "deepseek-v3-test";
  m.architecture = "deepseek_v3";
  m.num_layers = 61;
  m.hidden = 7168;
  m.num_heads = 128;
  m.num_kv_heads = 128;
  m.head_dim = 192;
  m.intermediate = 18432;
  m.vocab = 129280;
  m.attention = AttentionKind::mla;
  m.mla = {1536, 512, 128, 64, 128};
  m.num_experts = 256;
  m.num_active_experts = 8;
  m.num_shared_experts = 1;
  m.moe_intermediate = 2048;
  m.num_dense_layers = 3;
  m.max_position = 163840;
  return m;
}

// gpt-oss-120b's config.json (openai/gpt-oss-120b): 36 layers alternating sliding (128) and full.
ModelSpec gpt_oss_120b() {
  ModelSpec m;
  m.name = "gpt-oss-120b-test";
  m.architecture = "gpt_oss";
  m.num_layers = 36;
  m.hidden = 2880;
  m.num_heads = 64;
  m.num_kv_heads = 8;
  m.head_dim = 64;
  m.intermediate = 2880;
  m.vocab = 201088;
  m.attention_bias = true;
  for (int64_t i = 0; i < m.num_layers; ++i) {
    m.layer_attention.push_back(i % 2 == 0 ? LayerAttention::sliding : LayerAttention::full);
  }
  m.sliding_window = 128;
  m.num_experts = 128;
  m.num_active_experts = 4;
  m.moe_intermediate = 2880;
  m.max_position = 131072;
  m.quant.method = "mxfp4";
  m.quant.dtype = DType::fp4;
  m.quant.scale_bytes_per_weight = 1.0 / 32.0;
  m.quant.attention = false;
  return m;
}

Deployment with(int32_t tp, DType weight_dtype) {
  Deployment d;
  d.tp = tp;
  d.weight_dtype = weight_dtype;
  return d;
}

TEST(Mla, KvCacheHoldsTheLatentReplicatedOnEveryRank) {
  const ModelSpec m = deepseek_v3();
  EXPECT_EQ(m.kv_values_per_token_per_layer(), 576);
  // 61 layers x 576 values x 2 bytes, whatever the TP degree.
  EXPECT_DOUBLE_EQ(kv_bytes_per_token_per_gpu(m, with(1, DType::bf16)), 70272.0);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token_per_gpu(m, with(8, DType::bf16)), 70272.0);
  Deployment fp8_kv = with(8, DType::fp8);
  fp8_kv.kv_dtype = DType::fp8;
  EXPECT_DOUBLE_EQ(kv_bytes_per_token_per_gpu(m, fp8_kv), 35136.0);
}

TEST(Mla, DownProjectionsAreReplicatedAndTheRestSplit) {
  const ModelSpec m = deepseek_v3();
  const double replicated = 7168.0 * (1536 + 512 + 64);
  const double split = m.attention_params_per_layer() - replicated;
  const double at_tp1 = weight_bytes_per_gpu(m, with(1, DType::fp8));
  const double at_tp8 = weight_bytes_per_gpu(m, with(8, DType::fp8));
  // Replicated: MLA down-projections, norms, routers; everything else is split 8 ways.
  const double replicated_bytes =
      61.0 * replicated * 1.0 + m.norm_params() * 2.0 + 58.0 * m.router_params() * 2.0;
  EXPECT_NEAR(at_tp8, replicated_bytes + (at_tp1 - replicated_bytes) / 8.0, 1.0);
  EXPECT_GT(split, 0.0);
}

TEST(Mla, FitsOnEightH200AtFp8) {
  const MemoryPlan plan =
      plan_memory(deepseek_v3(), find_gpu("H200", "t"), with(8, DType::fp8), "p");
  EXPECT_GT(plan.weight_bytes_per_gpu, 671e9 / 8.0);  // plus replicated parts
  EXPECT_LT(plan.weight_bytes_per_gpu, 95e9);
  EXPECT_GT(plan.num_kv_blocks, 1000);
}

// One GPU's MLA attention of DeepSeek-V3 at tp 8 (16 of its 128 heads), fp8 kv_b_proj.
AttentionShape deepseek_v3_tp8_attention(double kv_bytes) {
  AttentionShape shape;
  shape.num_heads = 16;
  shape.num_kv_heads = 16;
  shape.head_dim = 192;
  shape.kv_bytes = kv_bytes;
  shape.mla = true;
  shape.mla_dims = deepseek_v3().mla;
  shape.kv_b_weight_bytes = 1.0;
  return shape;
}

TEST(Mla, DecodeReadsTheLatentCacheOnce) {
  const AttentionShape shape = deepseek_v3_tp8_attention(2.0);
  const std::vector<SeqWork> one{{1, 10000, 1}};
  const AttentionWork work = attention_work(shape, one);
  const double latent_bytes = 10001.0 * 576 * 2;  // cached latents + the new one
  const double kv_b_bytes = 512.0 * 16 * (128 + 128);
  EXPECT_GT(work.decode.bytes, latent_bytes + kv_b_bytes);
  EXPECT_LT(work.decode.bytes, 1.01 * (latent_bytes + kv_b_bytes));
  EXPECT_EQ(work.prefill.flops, 0.0);
  // Prefill expands latents into per-head keys and values: far more bytes per cached token.
  const std::vector<SeqWork> chunk{{512, 10000, 0}};
  EXPECT_GT(attention_work(shape, chunk).prefill.bytes, 10.0 * latent_bytes);
}

// Verifying k drafts runs the decode kernel with 1 + k query rows: each row's FLOPs, the latent
// cache read once, no expansion of the cached latents as a prefill chunk would.
TEST(Mla, VerificationIsDecodeWorkPerRowOverOneReadOfTheLatents) {
  const AttentionShape shape = deepseek_v3_tp8_attention(1.0);
  const std::vector<SeqWork> decode{{1, 10000, 1}};
  const std::vector<SeqWork> verify{{3, 10000, 3}};  // k = 2 drafts
  const AttentionWork d = attention_work(shape, decode);
  const AttentionWork v = attention_work(shape, verify);
  EXPECT_EQ(v.prefill.flops, 0.0);
  EXPECT_EQ(v.prefill.bytes, 0.0);
  EXPECT_GT(v.decode.flops, 2.99 * d.decode.flops);
  EXPECT_LT(v.decode.flops, 3.01 * d.decode.flops);
  EXPECT_GT(v.decode.bytes, d.decode.bytes);
  EXPECT_LT(v.decode.bytes, 1.01 * d.decode.bytes);
  // A 3-token chunk that samples only its last token stays a prefill chunk.
  const std::vector<SeqWork> chunk{{3, 10000, 1}};
  EXPECT_GT(attention_work(shape, chunk).prefill.bytes, 10.0 * d.decode.bytes);
  EXPECT_EQ(decode_rows(verify[0]), 3);
  EXPECT_EQ(decode_rows(chunk[0]), 0);
  EXPECT_EQ(decode_rows(decode[0]), 1);
  EXPECT_EQ(decode_rows(SeqWork{1, 0, 1}), 0);  // a one-token prompt
}

TEST(SlidingWindow, AttendedPairsCapEachQueryAtTheWindow) {
  for (const double c : {1.0, 7.0, 128.0, 500.0}) {
    for (const double p : {0.0, 50.0, 127.0, 128.0, 4000.0}) {
      for (const int64_t w : {0, 1, 128, 1000}) {
        double expected = 0.0;
        for (double i = 1.0; i <= c; i += 1.0) {
          expected += w == 0 ? p + i : std::min(p + i, static_cast<double>(w));
        }
        EXPECT_DOUBLE_EQ(attended_pairs(c, p, w), expected) << c << " " << p << " " << w;
      }
    }
  }
}

TEST(SlidingWindow, SlidingLayersAreReservedPerSequenceNotPerToken) {
  const ModelSpec m = gpt_oss_120b();
  EXPECT_EQ(m.num_sliding_layers(), 18);
  EXPECT_EQ(m.num_full_layers(), 18);
  Deployment d = with(2, DType::fp4);
  d.max_num_seqs = 256;
  // Per block token: the 18 full layers, 2 x 4 KV heads x 64 x 2 bytes each.
  EXPECT_DOUBLE_EQ(kv_bytes_per_token_per_gpu(m, d), 18.0 * 2 * 4 * 64 * 2);
  // Per sequence slot: the window in whole 16-token blocks plus the block being filled.
  EXPECT_DOUBLE_EQ(sliding_kv_reserve_bytes(m, d), 256.0 * (8 + 1) * 16 * 18 * (2 * 4 * 64 * 2));
  const MemoryPlan plan = plan_memory(m, find_gpu("H100-SXM", "t"), d, "p");
  EXPECT_EQ(plan.num_kv_blocks,
            static_cast<int64_t>((plan.kv_cache_bytes_per_gpu - plan.sliding_kv_reserve_bytes) /
                                 (16.0 * plan.kv_bytes_per_token_per_gpu)));
}

TEST(SlidingWindow, AllSlidingModelCarriesEveryLayerInItsBlocks) {
  ModelSpec m = gpt_oss_120b();
  m.layer_attention.assign(36, LayerAttention::sliding);
  const Deployment d = with(1, DType::bf16);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token_per_gpu(m, d), 36.0 * 2 * 8 * 64 * 2);
  EXPECT_EQ(sliding_kv_reserve_bytes(m, d), 0.0);
}

TEST(SlidingWindow, LongContextDecodeCostsLessThanFullAttention) {
  const ModelSpec sliding = gpt_oss_120b();
  ModelSpec full = sliding;
  full.layer_attention.clear();
  const GpuSpec& gpu = find_gpu("H100-SXM", "t");
  const std::vector<SeqWork> batch(64, SeqWork{1, 32000, 1});
  const Deployment d = with(2, DType::fp4);
  const double with_window = RooflineCosts(sliding, gpu, d, {}).attention_seconds(batch).decode;
  const double without = RooflineCosts(full, gpu, d, {}).attention_seconds(batch).decode;
  // Half the layers read 128 tokens instead of 32,000.
  EXPECT_NEAR(with_window / without, 0.5, 0.01);
}

TEST(CheckpointQuant, KeptModulesStayBf16AndScalesCountInTheirOwnFormat) {
  const ModelSpec m = gpt_oss_120b();
  const WeightFormats own = weight_formats(m, DType::fp4);
  EXPECT_EQ(own.attention.dtype, DType::bf16);
  EXPECT_DOUBLE_EQ(own.attention.bytes_per_weight, 2.0);
  EXPECT_EQ(own.experts.dtype, DType::fp4);
  EXPECT_DOUBLE_EQ(own.experts.bytes_per_weight, 0.5 + 1.0 / 32.0);
  const WeightFormats fp8 = weight_formats(m, DType::fp8);  // served in another format
  EXPECT_DOUBLE_EQ(fp8.experts.bytes_per_weight, 1.0);
  EXPECT_DOUBLE_EQ(fp8.attention.bytes_per_weight, 2.0);
  // gpt-oss-120b's checkpoint: ~60.8 GiB (OpenAI's model card: "fits on a single 80 GB GPU").
  const double bytes = weight_bytes_per_gpu(m, with(1, DType::fp4));
  EXPECT_GT(bytes / (1024.0 * 1024 * 1024), 58.0);
  EXPECT_LT(bytes / (1024.0 * 1024 * 1024), 64.0);
}

TEST(ModelDescription, StatesAttentionPerLayerAndKvBytes) {
  const nlohmann::ordered_json oss = describe_model(gpt_oss_120b());
  const nlohmann::ordered_json& runs = oss["attention"]["per_layer"];
  ASSERT_EQ(runs.size(), 36u);  // alternating, one run per layer
  EXPECT_EQ(runs[0]["layers"], "0");
  EXPECT_EQ(runs[0]["kind"], "sliding");
  EXPECT_EQ(runs[1]["kind"], "full");
  EXPECT_EQ(oss["attention"]["sliding_window"], 128);
  EXPECT_EQ(oss["kv_bytes_per_token"]["bf16"]["per_token_full_layers"], 18.0 * 2 * 8 * 64 * 2);
  EXPECT_EQ(oss["quantization"]["method"], "mxfp4");
  const nlohmann::ordered_json v3 = describe_model(deepseek_v3());
  EXPECT_EQ(v3["attention"]["kind"], "mla");
  EXPECT_EQ(v3["attention"]["per_layer"].size(), 1u);
  EXPECT_EQ(v3["attention"]["per_layer"][0]["layers"], "0-60");
  EXPECT_EQ(v3["kv_bytes_per_token"]["bf16"]["per_token_all_layers"], 70272.0);
  EXPECT_EQ(v3["experts"]["num_dense_layers"], 3);
  EXPECT_EQ(v3["quantization"], nullptr);
}

}  // namespace
}  // namespace tidal::perf
