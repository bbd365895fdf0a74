// Skewed expert routing (Deployment::expert_load, perf/expert_load.h): Zipf and explicit shares,
// the experts a step touches and the assignments each expert-parallel rank computes, and what
// that does to the MoE layers' time in the roofline and kernel-table models.
#include <cmath>
#include <numeric>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "perf/expert_load.h"
#include "perf/hf_config.h"
#include "perf/kernel_db_model.h"
#include "perf/memory_plan.h"
#include "perf/roofline_costs.h"
#include "perf/roofline_model.h"
#include "tests/perf/moe_layout_test_util.h"

namespace tidal::perf {
namespace {

using moe_test::h200;
using moe_test::layout;

double routed_seconds(const ModelSpec& model, const Deployment& d, int64_t num_tokens) {
  const RooflineCosts costs(model, h200(), d, RooflineOptions{});
  return d.attention_dp > 1 ? costs.shared_token_seconds(OpClass::moe_experts, num_tokens)
                            : costs.token_seconds(OpClass::moe_experts, num_tokens);
}

TEST(ExpertLoad, ZipfSharesByHand) {
  // 1, 1/2, 1/3, 1/4 over 25/12: 12/25, 6/25, 4/25, 3/25 (top-2: none above the 1/2 cap).
  const ExpertLoad load = zipf_expert_load(4, 2, 1.0);
  ASSERT_EQ(load.shares.size(), 4u);
  EXPECT_DOUBLE_EQ(load.shares[0], 12.0 / 25.0);
  EXPECT_DOUBLE_EQ(load.shares[1], 6.0 / 25.0);
  EXPECT_DOUBLE_EQ(load.shares[2], 4.0 / 25.0);
  EXPECT_DOUBLE_EQ(load.shares[3], 3.0 / 25.0);
  EXPECT_TRUE(zipf_expert_load(8, 2, 0.0).balanced());
}

TEST(ExpertLoad, ExplicitSharesNormaliseAndCapAtOneOverTopK) {
  EXPECT_TRUE(explicit_expert_load(std::vector<double>(8, 3.0), 2).balanced());
  const ExpertLoad two = explicit_expert_load(std::vector<double>{2, 1, 1, 0}, 2);
  EXPECT_EQ(two.shares, (std::vector<double>{0.5, 0.25, 0.25, 0.0}));
  // 6 of 8 would pass top-2's cap of 1/2: capped there, the rest split 1:1.
  const ExpertLoad capped = explicit_expert_load(std::vector<double>{6, 1, 1, 0}, 2);
  EXPECT_EQ(capped.shares, (std::vector<double>{0.5, 0.25, 0.25, 0.0}));
  // Zipf 1.2 over DeepSeek-V3's 256 experts puts ~25% on the first, above top-8's 1/8.
  const ExpertLoad deepseek = zipf_expert_load(256, 8, 1.2);
  EXPECT_DOUBLE_EQ(deepseek.shares[0], 0.125);
  EXPECT_NEAR(std::accumulate(deepseek.shares.begin(), deepseek.shares.end(), 0.0), 1.0, 1e-12);
  for (const double share : deepseek.shares) EXPECT_LE(share, 0.125);
}

TEST(ExpertLoad, TouchedExpertsAndRankAssignmentsByHand) {
  const ExpertLoad load = zipf_expert_load(4, 2, 1.0);  // 12/25, 6/25, 4/25, 3/25
  // One token touches top_k experts whatever the skew: q = 24/25 + 12/25 + 8/25 + 6/25 = 2.
  const RankExpertWork one = rank_expert_work(load, 4, 2, 1, 0, 1.0);
  EXPECT_DOUBLE_EQ(one.num_experts_touched, 2.0);
  EXPECT_DOUBLE_EQ(one.num_assignments, 2.0);
  // Three tokens: sum of 1 - (1 - q_i)^3 over q = 0.96, 0.48, 0.32, 0.24.
  const RankExpertWork three = rank_expert_work(load, 4, 2, 1, 0, 3.0);
  EXPECT_NEAR(three.num_experts_touched,
              (1 - std::pow(0.04, 3)) + (1 - std::pow(0.52, 3)) + (1 - std::pow(0.68, 3)) +
                  (1 - std::pow(0.76, 3)),
              1e-12);
  EXPECT_DOUBLE_EQ(three.num_assignments, 6.0);
  // ep 2, experts {0, 1} and {2, 3}: 18/25 and 7/25 of the assignments.
  const RankExpertWork hot = rank_expert_work(load, 4, 2, 2, 0, 10.0);
  const RankExpertWork cold = rank_expert_work(load, 4, 2, 2, 1, 10.0);
  EXPECT_DOUBLE_EQ(hot.num_assignments, 20.0 * 18.0 / 25.0);
  EXPECT_DOUBLE_EQ(cold.num_assignments, 20.0 * 7.0 / 25.0);
  // Balanced: E / ep (1 - (1 - k / E)^t) and t k / ep on every rank.
  const RankExpertWork even = rank_expert_work({}, 8, 2, 2, 1, 4.0);
  EXPECT_DOUBLE_EQ(even.num_experts_touched, 4.0 * (1.0 - std::pow(0.75, 4)));
  EXPECT_DOUBLE_EQ(even.num_assignments, 4.0);
}

TEST(ExpertSkewRoofline, SkewZeroIsTheBalancedFigureExactly) {
  const ModelSpec mixtral = find_model("mixtral-8x7b", "t");
  const ModelSpec deepseek = find_model("deepseek-v3", "t");
  const std::vector<SeqWork> decodes(64, SeqWork{1, 1024, 1});
  for (const auto& [model, d] :
       {std::pair{mixtral, layout(2, 1, 1)}, std::pair{deepseek, layout(1, 8, 8)}}) {
    Deployment zero = d;
    zero.expert_load = zipf_expert_load(model.num_experts, model.num_active_experts, 0.0);
    for (const int64_t t : {1, 64, 4096}) {
      EXPECT_EQ(routed_seconds(model, zero, t), routed_seconds(model, d, t)) << model.name;
    }
    EXPECT_EQ(make_roofline_model(model, h200(), zero)->step_seconds(decodes),
              make_roofline_model(model, h200(), d)->step_seconds(decodes));
  }
}

TEST(ExpertSkewRoofline, SkewIsSlowerAtMediumBatchWithEpAndEqualAtBatchOneWithout) {
  const ModelSpec deepseek = find_model("deepseek-v3", "t");
  const int64_t e = deepseek.num_experts;
  const int64_t k = deepseek.num_active_experts;
  // Expert parallel over 8 attention ranks: the rank holding the hot experts sets the time. At 64
  // tokens it reads nearly all its 32 experts (27.8 balanced), whichever the exponent.
  const double balanced = routed_seconds(deepseek, layout(1, 8, 8), 64);
  const double mild = routed_seconds(deepseek, layout(1, 8, 8, zipf_expert_load(e, k, 0.6)), 64);
  const double skewed = routed_seconds(deepseek, layout(1, 8, 8, zipf_expert_load(e, k, 1.2)), 64);
  EXPECT_GT(mild, balanced * 1.1);
  EXPECT_GT(skewed, balanced * 1.1);
  // Mixtral at ep 8 (one expert per GPU), 512 tokens: the hot GPU's assignments set the time.
  const ModelSpec mixtral = find_model("mixtral-8x7b", "t");
  const auto mixtral_at = [&](double exponent) {
    return routed_seconds(mixtral, layout(1, 8, 8, zipf_expert_load(8, 2, exponent)), 512);
  };
  EXPECT_GT(mixtral_at(0.6), mixtral_at(0.0));
  EXPECT_GT(mixtral_at(1.2), mixtral_at(0.6));
  // Without ep one token reads top_k experts and computes top_k assignments whatever the skew.
  for (const ModelSpec& model : {mixtral, deepseek}) {
    const Deployment even = layout(8, 1, 1);
    const Deployment zipf =
        layout(8, 1, 1, zipf_expert_load(model.num_experts, model.num_active_experts, 1.2));
    EXPECT_NEAR(routed_seconds(model, zipf, 1), routed_seconds(model, even, 1),
                routed_seconds(model, even, 1) * 1e-12)
        << model.name;
  }
}

TEST(ExpertSkewRoofline, ExplicitLoadPutsTheSlowestRankFirst) {
  const ModelSpec mixtral = find_model("mixtral-8x7b", "t");  // 8 experts, top-2
  // ep 4, two experts per rank: all load on rank 2's experts 4 and 5.
  const std::vector<double> hot_rank{0, 0, 0, 0, 1, 1, 0, 0};
  const Deployment d = layout(1, 4, 4, explicit_expert_load(hot_rank, 2));
  const RooflineCosts costs(mixtral, h200(), d, RooflineOptions{});
  const RooflineCosts even(mixtral, h200(), layout(1, 4, 4), RooflineOptions{});
  // Rank 2 computes every assignment (2 per token) and reads both its experts.
  EXPECT_DOUBLE_EQ(costs.routed_expert_work(32).flops, 4.0 * even.routed_expert_work(32).flops);
  EXPECT_DOUBLE_EQ(costs.routed_expert_work(32).flops, 2.0 * 32.0 * 2.0 * mixtral.expert_params());
  EXPECT_GT(costs.shared_token_seconds(OpClass::moe_experts, 32),
            even.shared_token_seconds(OpClass::moe_experts, 32));
  EXPECT_GT(costs.routed_expert_skew_factor(32), 1.0);
  EXPECT_EQ(even.routed_expert_skew_factor(32), 1.0);
}

TEST(ExpertSkewRoofline, LoadOfTheWrongLengthIsRefused) {
  const ModelSpec mixtral = find_model("mixtral-8x7b", "t");
  const Deployment d = layout(1, 1, 1, explicit_expert_load(std::vector<double>{1, 2, 3}, 2));
  EXPECT_THROW(RooflineCosts(mixtral, h200(), d, RooflineOptions{}), InputError);
}

// The kernel tables' uniform-routing MoE rows scaled by the roofline's skew factor.
TEST(ExpertSkewKernelDb, DeepSeekV3OnH200SglangScalesTheMoeRows) {
  const auto shared = moe_test::shared_deepseek_v3();
  SKIP_WITHOUT_SHARED_DEEPSEEK_V3(shared);
  const ModelSpec& model = shared->model;
  Deployment even = layout(1, 8, 8);
  even.weight_dtype = model.quant.dtype;
  Deployment zero = even;
  zero.expert_load = zipf_expert_load(model.num_experts, model.num_active_experts, 0.0);
  Deployment skewed = even;
  skewed.expert_load = zipf_expert_load(model.num_experts, model.num_active_experts, 1.2);
  const KernelDbSpec spec{shared->kernel_db_dir, "sglang", "", "", ""};
  const auto even_model = make_kernel_db_model(spec, model, h200(), even, RooflineOptions{});
  const auto zero_model = make_kernel_db_model(spec, model, h200(), zero, RooflineOptions{});
  const auto skewed_model = make_kernel_db_model(spec, model, h200(), skewed, RooflineOptions{});
  const std::vector<SeqWork> decodes(64, SeqWork{1, 2048, 1});
  EXPECT_EQ(zero_model->step_seconds(decodes), even_model->step_seconds(decodes));
  const StepBreakdown even_parts = even_model->breakdown(decodes);
  const StepBreakdown skewed_parts = skewed_model->breakdown(decodes);
  EXPECT_GT(skewed_parts[OpClass::moe_experts], even_parts[OpClass::moe_experts]);
  EXPECT_GT(skewed_model->step_seconds(decodes), even_model->step_seconds(decodes));
}

}  // namespace
}  // namespace tidal::perf
