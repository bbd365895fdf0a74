// Pipeline parallelism (Deployment::pp): vLLM's split of layers over stages, each stage's model,
// the memory plan of the stage that binds, and the step time of micro-batches flowing through
// the stages (perf/pipeline_step_model.h) against hand-computed cases.
#include <cmath>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "perf/gpu_catalog.h"
#include "perf/memory_plan.h"
#include "perf/model_catalog.h"
#include "perf/pipeline_stages.h"
#include "perf/pipeline_step_model.h"

namespace tidal::perf {
namespace {

std::vector<int64_t> stage_sizes(int64_t num_layers, int32_t pp) {
  std::vector<int64_t> sizes;
  int64_t next_first = 0;
  for (const PipelineStage& stage : split_layers(num_layers, pp)) {
    EXPECT_EQ(stage.first_layer, next_first);
    next_first += stage.num_layers;
    sizes.push_back(stage.num_layers);
  }
  EXPECT_EQ(next_first, num_layers);
  return sizes;
}

TEST(PipelineStages, SplitAsVllmDoes) {
  EXPECT_EQ(stage_sizes(32, 4), (std::vector<int64_t>{8, 8, 8, 8}));
  // The remainder goes to the stages before the last, from the second-to-last backwards.
  EXPECT_EQ(stage_sizes(30, 4), (std::vector<int64_t>{7, 8, 8, 7}));
  EXPECT_EQ(stage_sizes(61, 8), (std::vector<int64_t>{7, 7, 8, 8, 8, 8, 8, 7}));
  EXPECT_EQ(stage_sizes(7, 4), (std::vector<int64_t>{2, 2, 2, 1}));
  EXPECT_EQ(stage_sizes(5, 5), (std::vector<int64_t>{1, 1, 1, 1, 1}));
  EXPECT_EQ(stage_sizes(80, 1), (std::vector<int64_t>{80}));
  const std::vector<PipelineStage> stages = split_layers(10, 3);
  EXPECT_TRUE(stages[0].has_embedding);
  EXPECT_FALSE(stages[0].has_lm_head);
  EXPECT_FALSE(stages[1].has_embedding || stages[1].has_lm_head);
  EXPECT_TRUE(stages[2].has_lm_head);
  EXPECT_TRUE(split_layers(10, 1)[0].has_embedding && split_layers(10, 1)[0].has_lm_head);
}

// 4 layers (1 dense, 3 MoE), the first and third sliding.
ModelSpec tiny_moe() {
  ModelSpec m;
  m.name = "tiny-moe";
  m.num_layers = 4;
  m.hidden = 1024;
  m.num_heads = 8;
  m.num_kv_heads = 8;
  m.head_dim = 128;
  m.intermediate = 4096;
  m.vocab = 32000;
  m.num_experts = 16;
  m.num_active_experts = 2;
  m.moe_intermediate = 512;
  m.num_dense_layers = 1;
  m.layer_attention = {LayerAttention::sliding, LayerAttention::full, LayerAttention::sliding,
                       LayerAttention::full};
  m.sliding_window = 128;
  m.max_position = 4096;
  check_model_spec(m, "tiny-moe");
  return m;
}

TEST(PipelineStages, StageModelHoldsItsLayersOnly) {
  const ModelSpec m = tiny_moe();
  const std::vector<PipelineStage> stages = split_layers(m.num_layers, 2);
  const ModelSpec first = stage_layers_model(m, stages[0]);
  const ModelSpec second = stage_layers_model(m, stages[1]);
  EXPECT_EQ(first.num_layers, 2);
  EXPECT_EQ(first.num_dense_layers, 1);
  EXPECT_EQ(first.num_moe_layers(), 1);
  EXPECT_EQ(second.num_dense_layers, 0);
  EXPECT_EQ(second.num_moe_layers(), 2);
  EXPECT_EQ(first.num_sliding_layers(), 1);
  EXPECT_EQ(second.num_sliding_layers(), 1);
  EXPECT_EQ(first.embedding_params(), 0.0);
}

const ModelSpec& llama_8b() {
  return *lookup_model("llama-3-8b");
}

Deployment staged(int32_t tp, int32_t pp) {
  Deployment d;
  d.tp = tp;
  d.pp = pp;
  return d;
}

TEST(PipelineMemory, EachStageHoldsItsLayersAndOneEmbedding) {
  const ModelSpec& m = llama_8b();
  const GpuSpec& gpu = find_gpu("H100-SXM", "test");
  const MemoryPlan one = plan_memory(m, gpu, staged(1, 1), "pool");
  const MemoryPlan two = plan_memory(m, gpu, staged(1, 2), "pool");
  EXPECT_EQ(staged(2, 2).num_gpus(), 4);
  EXPECT_EQ(staged(2, 2).stage_gpus(), 2);
  // 16 of 32 layers per GPU: half the KV per token; the sum over stages is the whole model's.
  EXPECT_DOUBLE_EQ(two.kv_bytes_per_token_per_gpu, one.kv_bytes_per_token_per_gpu / 2.0);
  EXPECT_DOUBLE_EQ(two.kv_bytes_per_token_all_stages, one.kv_bytes_per_token_per_gpu);
  EXPECT_DOUBLE_EQ(one.kv_bytes_per_token_all_stages, one.kv_bytes_per_token_per_gpu);
  // Weights: half the layers plus one of the embedding and the (untied) LM head.
  const double embedding = static_cast<double>(m.vocab * m.hidden) * 2.0;
  const double layers = one.weight_bytes_per_gpu - 2.0 * embedding;
  EXPECT_NEAR(two.weight_bytes_per_gpu, layers / 2.0 + embedding, 1e-6 * layers);
  // Less weight and half the KV per token per GPU: more than twice the blocks.
  EXPECT_GT(two.num_kv_blocks, 2 * one.num_kv_blocks);
  const double kv_budget = two.kv_cache_bytes_per_gpu;
  EXPECT_EQ(two.num_kv_blocks,
            static_cast<int64_t>(std::floor(kv_budget / (16.0 * two.kv_bytes_per_token_per_gpu))));
}

TEST(PipelineMemory, TheStageWithTheMostLayersBinds) {
  // 30 layers over 4 stages: 7, 8, 8, 7; the middle stages hold no embedding but one more layer.
  ModelSpec m = llama_8b();
  m.num_layers = 30;
  const GpuSpec& gpu = find_gpu("H100-SXM", "test");
  const MemoryPlan plan = plan_memory(m, gpu, staged(1, 4), "pool");
  ModelSpec eight = m;
  eight.num_layers = 8;
  EXPECT_DOUBLE_EQ(plan.kv_bytes_per_token_per_gpu,
                   kv_bytes_per_token_per_gpu(eight, staged(1, 1)));
}

std::string error_of(const ModelSpec& m, const Deployment& d) {
  try {
    plan_memory(m, find_gpu("H100-SXM", "test"), d, "scenario.json: fleet.pools[0]");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(PipelineMemory, ImpossibleLayoutsAreOneClearErrorEach) {
  EXPECT_EQ(error_of(llama_8b(), staged(1, 33)),
            "scenario.json: fleet.pools[0].pp: 33 stages for the 32 layers of llama-3-8b: at most "
            "one stage per layer");
  EXPECT_EQ(error_of(llama_8b(), staged(1, 0)),
            "scenario.json: fleet.pools[0].pp: must be >= 1 (got 0)");
  Deployment d = staged(1, 2);
  d.attention_dp = 2;
  EXPECT_EQ(error_of(tiny_moe(), d)
                .find("scenario.json: fleet.pools[0].pp: 2 stages with "
                      "attention_dp 2"),
            0u);
  d = staged(1, 2);
  d.pp_link_gb_per_s = 0.0;
  EXPECT_EQ(error_of(llama_8b(), d).find("scenario.json: fleet.pools[0].pp_link:"), 0u);
}

// Each class priced per sequence: attention 1 ms, LM head 0.1 ms per row, CPU overhead 10 us per
// step; swaps 1 ms per block.
class PerSequenceModel final : public StepTimeModel {
 public:
  double step_seconds(std::span<const SeqWork> batch) const override {
    return breakdown(batch).total_seconds();
  }
  double swap_seconds(int64_t num_blocks) const override { return 1e-3 * num_blocks; }
  StepBreakdown breakdown(std::span<const SeqWork> batch) const override {
    StepBreakdown out;
    for (const SeqWork& seq : batch) {
      if (seq.num_new_tokens == 0) continue;
      out[OpClass::attention_decode] += 1e-3;
      out[OpClass::lm_head] += 1e-4 * static_cast<double>(seq.num_logit_rows);
      out[OpClass::cpu_overhead] = 1e-5;
    }
    return out;
  }
};

ModelSpec four_dense_layers() {
  ModelSpec m = llama_8b();
  m.num_layers = 4;
  m.hidden = 1000;
  return m;
}

TEST(PipelineStepModel, MicroBatchesKeepTheBusiestStageBusy) {
  Deployment d = staged(1, 2);
  d.pp_link_gb_per_s = 100.0;
  d.pp_link_latency_s = 1e-6;
  const PipelineStepModel model(std::make_shared<PerSequenceModel>(), four_dense_layers(), d);
  // Four decodes: two micro-batches of two. Stage 0: half the attention (1 ms) + the host's 10 us
  // per micro-batch; stage 1: half the attention + the LM head (0.2 ms).
  const std::vector<SeqWork> decodes(4, SeqWork{1, 100, 1});
  const double stage0 = 1e-3 + 1e-5;
  const double stage1 = 1e-3 + 2e-4;
  const double hop = 1e-6 + 2.0 * 1000.0 * 2.0 * 2.0 / 100e9;  // 2 tokens' hidden + residual
  EXPECT_DOUBLE_EQ(model.step_seconds(decodes), std::max(2.0 * stage1, stage0 + stage1 + hop));
  EXPECT_NEAR(model.breakdown(decodes).total_seconds(), model.step_seconds(decodes), 1e-15);
  // Against one stage over the four: 4.41 ms.
  EXPECT_LT(model.step_seconds(decodes), PerSequenceModel().step_seconds(decodes));
}

TEST(PipelineStepModel, OneSequenceCrossesEveryStageInTurn) {
  Deployment d = staged(1, 4);
  d.pp_link_gb_per_s = 50.0;
  d.pp_link_latency_s = 5e-6;
  const PipelineStepModel model(std::make_shared<PerSequenceModel>(), four_dense_layers(), d);
  const std::vector<SeqWork> prefill{SeqWork{1000, 0, 1}};
  // Four stages of a quarter of the attention each, the host before the first, the LM head in the
  // last, three hops of 1,000 tokens' activations.
  const double hop = 5e-6 + 1000.0 * 1000.0 * 2.0 * 2.0 / 50e9;
  EXPECT_NEAR(model.step_seconds(prefill), 1e-3 + 1e-5 + 1e-4 + 3.0 * hop, 1e-15);
  EXPECT_EQ(model.step_seconds({}), 0.0);
  // Each stage swaps its quarter of the blocks' bytes in parallel.
  EXPECT_DOUBLE_EQ(model.swap_seconds(8), 8e-3 / 4.0);
}

TEST(PipelineStepModel, FewerSequencesThanStagesLeaveBubbles) {
  Deployment d = staged(1, 4);
  d.pp_link_latency_s = 0.0;
  const PipelineStepModel model(std::make_shared<PerSequenceModel>(), four_dense_layers(), d);
  // Two sequences: two micro-batches of one; each trip crosses the four stages, the stages idle
  // half the step.
  const std::vector<SeqWork> two(2, SeqWork{1, 10, 1});
  const double hop = 1.0 * 1000.0 * 2.0 * 2.0 / 450e9;
  EXPECT_NEAR(model.step_seconds(two), 1e-3 + 1e-5 + 1e-4 + 3.0 * hop, 1e-15);
  // Eight: two per micro-batch, the last stage the busiest (four of its 0.25 + 0.2 ms parts).
  const std::vector<SeqWork> eight(8, SeqWork{1, 10, 1});
  EXPECT_NEAR(model.step_seconds(eight), 4.0 * (0.5e-3 + 2e-4), 1e-15);
}

}  // namespace
}  // namespace tidal::perf
