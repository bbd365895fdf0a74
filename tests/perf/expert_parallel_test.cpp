// Expert parallelism and attention data parallelism (Deployment::ep, attention_dp): the routed
// experts split over ep groups, the MoE all-to-all, the step of the slowest attention rank, the
// memory plan of each layout, and the errors for layouts a model cannot take.
#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "perf/attention_dp.h"
#include "perf/hf_config.h"
#include "perf/kernel_db_model.h"
#include "perf/memory_plan.h"
#include "perf/roofline_costs.h"
#include "perf/step_costs.h"
#include "tests/perf/moe_layout_test_util.h"

namespace tidal::perf {
namespace {

// 4 layers (1 dense, 3 MoE) of hidden 1024, 8 heads of 128 (GQA 8), 16 experts of width 512,
// top-2, no shared experts, vocab 32000, untied embeddings.
ModelSpec tiny_moe() {
  ModelSpec m;
  m.name = "tiny-moe";
  m.architecture = "mixtral";
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
  m.max_position = 4096;
  check_model_spec(m, "tiny-moe");
  return m;
}

using moe_test::h200;
using moe_test::layout;

RooflineOptions small_tables() {
  RooflineOptions o;
  o.max_precomputed_tokens = 4096;
  o.max_precomputed_seqs = 64;
  return o;
}

std::string error_of(const ModelSpec& model, const Deployment& d) {
  try {
    check_deployment(model, d, "scenario.json: fleet.pools[0]");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ExpertParallel, RoutedExpertComputeDividesByEp) {
  const ModelSpec m = tiny_moe();
  const RooflineCosts one(m, h200(), layout(1, 1, 1), small_tables());
  const RooflineCosts ep8(m, h200(), layout(1, 8, 8), small_tables());
  for (double t : {1.0, 64.0, 2048.0}) {
    const OpWork all = one.routed_expert_work(t);
    const OpWork share = ep8.routed_expert_work(t);
    // 2 x t x top-2 x 3 x 1024 x 512 FLOPs over the replica, one eighth on each GPU.
    EXPECT_DOUBLE_EQ(all.flops, 2.0 * t * 2.0 * 3.0 * 1024.0 * 512.0);
    EXPECT_DOUBLE_EQ(share.flops, all.flops / 8.0);
    EXPECT_NEAR(share.bytes, all.bytes / 8.0, all.bytes * 1e-12);
  }
  // ep over the TP group (tp 8, ep 8: one expert group per GPU) computes what TP 8 does.
  const RooflineCosts tp8(m, h200(), layout(8, 1, 1), small_tables());
  const RooflineCosts tp8_ep8(m, h200(), layout(8, 1, 8), small_tables());
  EXPECT_DOUBLE_EQ(tp8_ep8.routed_expert_work(512).flops, tp8.routed_expert_work(512).flops);
  EXPECT_DOUBLE_EQ(tp8.routed_expert_work(512).flops, one.routed_expert_work(512).flops / 8.0);
}

TEST(ExpertParallel, AllToAllBytesAndSecondsByHand) {
  const ModelSpec m = tiny_moe();
  const RooflineOptions o = small_tables();
  const RooflineCosts ep8(m, h200(), layout(1, 8, 8), o);
  // 800 tokens, 100 per GPU, each to (8 - 1) x (1 - (7/8)^2) = 1.640625 other GPUs, 2 KiB each.
  EXPECT_DOUBLE_EQ(ep8.alltoall_bytes_per_gpu(800), 100.0 * 1.640625 * 1024.0 * 2.0);
  EXPECT_DOUBLE_EQ(ep8.alltoall_seconds(800),
                   o.alltoall_latency_s + 336000.0 / (h200().interconnect_Bps * 0.8));
  // Dispatch and combine in each of the 3 MoE layers.
  EXPECT_DOUBLE_EQ(ep8.shared_token_seconds(OpClass::allreduce, 800),
                   3.0 * 2.0 * ep8.alltoall_seconds(800));
  EXPECT_DOUBLE_EQ(ep8.shared_token_seconds(OpClass::moe_experts, 800),
                   3.0 * std::max({o.min_kernel_seconds,
                                   ep8.routed_expert_work(800).flops /
                                       (h200().flops_bf16 * o.gemm_compute_efficiency),
                                   ep8.routed_expert_work(800).bytes /
                                       (h200().hbm_bandwidth_Bps * o.gemm_memory_efficiency)}));
  // ep 1 with attention ranks: every token to every other GPU (an all-gather's bytes).
  const RooflineCosts dp4(m, h200(), layout(1, 4, 1), o);
  EXPECT_DOUBLE_EQ(dp4.alltoall_bytes_per_gpu(400), 100.0 * 3.0 * 1024.0 * 2.0);
  // Without attention data parallelism the tokens are on every GPU already: no all-to-all, and
  // the routed experts stay in token_seconds.
  const RooflineCosts tp8_ep8(m, h200(), layout(8, 1, 8), o);
  EXPECT_EQ(tp8_ep8.alltoall_seconds(800), 0.0);
  EXPECT_EQ(tp8_ep8.shared_token_seconds(OpClass::moe_experts, 800), 0.0);
  EXPECT_GT(tp8_ep8.token_seconds(OpClass::moe_experts, 800), 0.0);
  // With them, moe_experts in a rank holds only the shared experts (none here).
  EXPECT_EQ(ep8.token_seconds(OpClass::moe_experts, 800), 0.0);
}

TEST(AttentionDataParallel, RoundRobinSplitInPlanOrder) {
  const std::vector<SeqWork> batch = {{512, 0}, {1, 100}, {0, 50}, {1, 200}, {64, 0}};
  RankSplit split;
  split.split(batch, 2);
  ASSERT_EQ(split.num_ranks(), 2);
  ASSERT_EQ(split.rank(0).size(), 2u);  // the 1st and 3rd sequences with new tokens
  EXPECT_EQ(split.rank(0)[0].num_new_tokens, 512);
  EXPECT_EQ(split.rank(0)[1].num_context_tokens, 200);
  ASSERT_EQ(split.rank(1).size(), 2u);
  EXPECT_EQ(split.rank(1)[0].num_context_tokens, 100);
  EXPECT_EQ(split.rank(1)[1].num_new_tokens, 64);
  split.split(batch, 8);  // more ranks than sequences: the rest idle
  EXPECT_EQ(split.rank(3).size(), 1u);
  EXPECT_TRUE(split.rank(4).empty());
}

// One rank's own operators, priced by hand from the costs: every token class, the LM head and
// sampling rows, attention.
double rank_operators(const RooflineCosts& costs, std::span<const SeqWork> rank) {
  const BatchCounts counts = count_batch(rank);
  double seconds = 0.0;
  for (OpClass op : kTokenOpClasses) seconds += costs.token_seconds(op, counts.num_tokens);
  for (OpClass op : kRowOpClasses) seconds += costs.seq_seconds(op, counts.num_logit_rows);
  const AttentionSeconds attention = costs.attention_seconds(rank);
  return seconds + attention.prefill + attention.decode;
}

TEST(AttentionDataParallel, StepIsTheSlowestRankPlusTheSharedExperts) {
  const ModelSpec m = tiny_moe();
  const Deployment d = layout(1, 2, 2);
  const RooflineCosts costs(m, h200(), d, small_tables());
  const TabulatedStepModel model(std::make_unique<RooflineCosts>(m, h200(), d, small_tables()),
                                 4096, 64, d.attention_dp);
  // Rank 0: the 1024-token prefill and a decode; rank 1: two decodes.
  const std::vector<SeqWork> batch = {{1024, 0}, {1, 300}, {1, 300}, {1, 300}};
  const std::vector<SeqWork> rank0 = {{1024, 0}, {1, 300}};
  const std::vector<SeqWork> rank1 = {{1, 300}, {1, 300}};
  const double slow = rank_operators(costs, rank0);
  const double fast = rank_operators(costs, rank1);
  EXPECT_GT(slow, fast);
  const double shared = costs.shared_token_seconds(OpClass::moe_experts, 1027) +
                        costs.shared_token_seconds(OpClass::allreduce, 1027);
  const double expected = slow + shared + costs.seq_seconds(OpClass::cpu_overhead, 2);
  EXPECT_NEAR(model.step_seconds(batch), expected, expected * 1e-12);
  // The same sequences in an order that puts the prefill on rank 1: the same slowest rank.
  const std::vector<SeqWork> swapped = {{1, 300}, {1024, 0}, {1, 300}, {1, 300}};
  EXPECT_NEAR(model.step_seconds(swapped), expected, expected * 1e-12);
  const StepBreakdown parts = model.breakdown(batch);
  EXPECT_NEAR(parts.total_seconds(), expected, expected * 1e-12);
  EXPECT_NEAR(parts[OpClass::allreduce], costs.shared_token_seconds(OpClass::allreduce, 1027),
              1e-15);
  // Two equal decodes over two ranks take one rank's decode plus the experts over both tokens.
  const std::vector<SeqWork> two = {{1, 300}, {1, 300}};
  const std::vector<SeqWork> one = {{1, 300}};
  const double two_expected = rank_operators(costs, one) +
                              costs.shared_token_seconds(OpClass::moe_experts, 2) +
                              costs.shared_token_seconds(OpClass::allreduce, 2) +
                              costs.seq_seconds(OpClass::cpu_overhead, 1);
  EXPECT_NEAR(model.step_seconds(two), two_expected, two_expected * 1e-12);
}

TEST(AttentionDataParallel, OneRankLeavesTheStepAsBefore) {
  const ModelSpec m = tiny_moe();
  const Deployment d = layout(2, 1, 2);
  const TabulatedStepModel model(std::make_unique<RooflineCosts>(m, h200(), d, small_tables()),
                                 4096, 64, 1);
  const RooflineCosts costs(m, h200(), d, small_tables());
  const std::vector<SeqWork> batch = {{256, 0}, {1, 300}};
  const double expected =
      rank_operators(costs, batch) + costs.seq_seconds(OpClass::cpu_overhead, 2);
  EXPECT_NEAR(model.step_seconds(batch), expected, expected * 1e-12);
}

TEST(ExpertParallelMemory, WeightsAndKvPerLayoutByHand) {
  const ModelSpec m = tiny_moe();
  // bf16 weights, per GPU:
  //   attention 4 layers x (q, o: 2 x 1024 x 1024 / tp + k, v: 2 x 1024 x 8 x 128 / tp) params
  //   dense MLP 1 layer x 3 x 1024 x 4096 / tp
  //   experts 3 layers x 16 x 3 x 1024 x 512 / (tp x attention_dp)   (16 / ep experts, moe_tp)
  //   routers 3 x 1024 x 16, norms 4 x 2 x 1024 + 1024, embedding + LM head 2 x 32000 x 1024 / tp
  auto by_hand = [](double tp, double num_gpus) {
    const double attention = 4.0 * (2.0 * 1024 * 1024 + 2.0 * 1024 * 1024) / tp;
    const double dense = 3.0 * 1024 * 4096 / tp;
    const double experts = 3.0 * 16 * 3 * 1024 * 512 / num_gpus;
    const double routers = 3.0 * 1024 * 16;
    const double norms = 4.0 * 2 * 1024 + 1024;
    const double embedding = 2.0 * 32000 * 1024 / tp;
    return 2.0 * (attention + dense + experts + routers + norms + embedding);
  };
  EXPECT_DOUBLE_EQ(weight_bytes_per_gpu(m, layout(1, 4, 4)), by_hand(1, 4));  // 227,657,728
  EXPECT_DOUBLE_EQ(by_hand(1, 4), 227657728.0);
  EXPECT_DOUBLE_EQ(weight_bytes_per_gpu(m, layout(1, 4, 1)), by_hand(1, 4));  // moe_tp 4
  EXPECT_DOUBLE_EQ(weight_bytes_per_gpu(m, layout(2, 2, 4)), by_hand(2, 4));
  EXPECT_DOUBLE_EQ(weight_bytes_per_gpu(m, layout(4, 1, 4)), by_hand(4, 4));
  EXPECT_DOUBLE_EQ(weight_bytes_per_gpu(m, layout(4, 1, 1)), by_hand(4, 4));
  // KV: each attention rank keeps its own; the replica holds attention_dp ranks' blocks.
  const MemoryPlan one_rank = plan_memory(m, h200(), layout(1, 1, 1), "p");
  const MemoryPlan four_ranks = plan_memory(m, h200(), layout(1, 4, 4), "p");
  EXPECT_DOUBLE_EQ(four_ranks.kv_bytes_per_token_per_gpu, 4.0 * 2 * 8 * 128 * 2);  // 16 KiB
  EXPECT_EQ(four_ranks.num_kv_blocks, 4 * four_ranks.num_kv_blocks_per_rank);
  EXPECT_EQ(one_rank.num_kv_blocks, one_rank.num_kv_blocks_per_rank);
  // Fewer expert bytes per GPU leave each rank more KV than the unsplit model has.
  EXPECT_GT(four_ranks.num_kv_blocks_per_rank, one_rank.num_kv_blocks_per_rank);
}

TEST(ExpertParallelErrors, BadLayoutsNameTheKey) {
  const ModelSpec m = tiny_moe();
  EXPECT_EQ(error_of(m, layout(1, 3, 3)),
            "scenario.json: fleet.pools[0].ep: 3 does not divide num_experts 16 of tiny-moe");
  EXPECT_EQ(error_of(m, layout(2, 2, 8)),
            "scenario.json: fleet.pools[0].ep: 8 does not divide the replica's 4 GPUs (tp 2 x "
            "attention_dp 2)");
  EXPECT_EQ(error_of(m, layout(1, 0, 1)),
            "scenario.json: fleet.pools[0].attention_dp: must be >= 1 (got 0)");
  EXPECT_EQ(error_of(m, layout(1, 1, 0)), "scenario.json: fleet.pools[0].ep: must be >= 1 (got 0)");
  const ModelSpec& dense = find_model("llama-3-8b", "test");
  EXPECT_EQ(error_of(dense, layout(2, 1, 2)),
            "scenario.json: fleet.pools[0].ep: 2 needs an MoE model; llama-3-8b is dense");
  EXPECT_NE(error_of(dense, layout(1, 2, 1))
                .find("scenario.json: fleet.pools[0].attention_dp: 2 needs an MoE model"),
            std::string::npos);
  EXPECT_EQ(error_of(m, layout(1, 8, 8)), "no error");
  // The step-time models check the layout too.
  EXPECT_THROW(RooflineCosts(m, h200(), layout(1, 3, 3), small_tables()), InputError);
}

// DeepSeek-V3 at ep 8 and attention_dp 8 on H200 SGLang: the tables' ep 8 MoE rows and NCCL's
// 8-GPU all-to-all price the MoE layers.
TEST(ExpertParallelKernelDb, DeepSeekV3OnH200SglangUsesTheEpRows) {
  const auto shared = moe_test::shared_deepseek_v3();
  SKIP_WITHOUT_SHARED_DEEPSEEK_V3(shared);
  const ModelSpec& model = shared->model;
  Deployment d = layout(1, 8, 8);
  d.weight_dtype = model.quant.dtype;
  KernelDbCoverage coverage;
  const auto step_model = make_kernel_db_model({shared->kernel_db_dir, "sglang", "", "", ""}, model,
                                               h200(), d, RooflineOptions{}, &coverage);
  const OperatorCoverage& experts = coverage.operators[static_cast<int>(OpClass::moe_experts)];
  EXPECT_EQ(experts.kind, CoverageKind::table) << experts.detail;
  EXPECT_NE(experts.detail.find("tp=1 ep=8"), std::string::npos) << experts.detail;
  const OperatorCoverage& comm = coverage.operators[static_cast<int>(OpClass::allreduce)];
  EXPECT_EQ(comm.kind, CoverageKind::table) << comm.detail;
  EXPECT_NE(comm.detail.find("alltoall 8 GPUs"), std::string::npos) << comm.detail;
  // 256 decodes over 8 ranks: the MoE and all-to-all see all 256 tokens.
  const std::vector<SeqWork> decodes(256, SeqWork{1, 2048, 1});
  const StepBreakdown parts = step_model->breakdown(decodes);
  EXPECT_GT(parts[OpClass::moe_experts], 0.0);
  EXPECT_GT(parts[OpClass::allreduce], 0.0);
  EXPECT_NEAR(parts.total_seconds(), step_model->step_seconds(decodes), 1e-12);
}

}  // namespace
}  // namespace tidal::perf
