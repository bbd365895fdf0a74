// The profiled step-time model: table interpolation per operator, roofline for marked sections,
// and the compatibility checks against the deployment.
#include <gtest/gtest.h>

#include "base/input_error.h"
#include "perf/profiled_model.h"

namespace tidal::perf {
namespace {

const ModelSpec& tiny() {
  return find_model("tiny-llama-15m", "t");
}  // 6 layers, hidden 288
const GpuSpec& gpu() {
  return find_gpu("A100-80GB", "t");
}

OperatorTable measured(std::vector<int64_t> num_tokens, std::vector<double> seconds,
                       OpScope scope = OpScope::layer) {
  return {scope, TimeSource::measured, std::move(num_tokens), std::move(seconds)};
}

Profile tiny_profile(int32_t tp) {
  Profile p;
  p.provenance = {"test", "none", "2026-01-01", "abc", "hand-written"};
  p.model = {"tiny-llama-15m", 288, 6, 6, 768, 32000, true};
  p.tp = tp;
  p.operators[OpClass::embedding] = measured({1, 1000}, {1e-6, 2e-6}, OpScope::step);
  p.operators[OpClass::norm] = measured({1, 1000}, {1e-6, 1e-6});
  p.operators[OpClass::qkv_proj] = measured({1, 10, 100}, {1e-5, 2e-5, 1.1e-4});
  p.operators[OpClass::rope] = measured({1, 1000}, {1e-6, 1e-6});
  p.operators[OpClass::o_proj] = measured({1, 1000}, {3e-6, 3e-5});
  p.operators[OpClass::mlp_up_gate] = measured({1, 1000}, {4e-6, 4e-5});
  p.operators[OpClass::mlp_act] = measured({1, 1000}, {1e-6, 1e-5});
  p.operators[OpClass::mlp_down] = measured({1, 1000}, {4e-6, 4e-5});
  p.operators[OpClass::residual_add] = measured({1, 1000}, {1e-6, 1e-6});
  p.operators[OpClass::lm_head] = {OpScope::step, TimeSource::roofline, {}, {}};
  p.operators[OpClass::sampling] = {OpScope::step, TimeSource::roofline, {}, {}};
  p.attention_source = TimeSource::measured;
  p.attention.prefill_chunk_tokens = {32, 64};
  p.attention.prefill_context_tokens = {0, 100};
  p.attention.prefill_seconds = {1e-5, 2e-5, 3e-5, 5e-5};  // [chunk, context]
  p.attention.decode_batch_sizes = {1, 4};
  p.attention.decode_context_tokens = {100, 300};
  p.attention.decode_seconds = {1e-6, 3e-6, 4e-6, 8e-6};  // [batch, context]
  if (tp > 1) p.allreduce = {TimeSource::measured, {1000, 100000}, {1e-5, 3e-5}};
  p.cpu_overhead = {TimeSource::measured, {8, 16}, {1e-3, 2e-3}};
  return p;
}

Deployment with_tp(int32_t tp) {
  Deployment d;
  d.tp = tp;
  return d;
}

std::unique_ptr<StepTimeModel> model_of(const Profile& p, int32_t tp = 1) {
  return make_profiled_model(p, tiny(), gpu(), with_tp(tp), "pool.perf.profile");
}

TEST(ProfiledModel, ExactAtTablePointsLinearBetweenScaledBeyond) {
  const auto model = model_of(tiny_profile(1));
  auto qkv = [&](int64_t tokens) {
    const std::vector<SeqWork> batch = {{tokens, 0}};
    return model->breakdown(batch)[OpClass::qkv_proj];
  };
  EXPECT_DOUBLE_EQ(qkv(1), 6 * 1e-5);
  EXPECT_DOUBLE_EQ(qkv(10), 6 * 2e-5);
  EXPECT_DOUBLE_EQ(qkv(100), 6 * 1.1e-4);
  EXPECT_DOUBLE_EQ(qkv(55), 6 * (2e-5 + 0.5 * 9e-5));
  EXPECT_DOUBLE_EQ(qkv(200), 6 * 1.1e-4 * 2);  // clamp and scale, never the last slope
  const std::vector<SeqWork> batch = {{10, 0}};
  EXPECT_DOUBLE_EQ(model->breakdown(batch)[OpClass::embedding], 1e-6 + 9.0 / 999 * 1e-6);
}

TEST(ProfiledModel, RooflineSectionsMatchTheRooflineModel) {
  const auto model = model_of(tiny_profile(1));
  const auto roofline = make_roofline_model(tiny(), gpu(), Deployment{});
  const std::vector<SeqWork> batch = {{1, 50}, {1, 70}, {30, 0}};
  EXPECT_DOUBLE_EQ(model->breakdown(batch)[OpClass::lm_head],
                   roofline->breakdown(batch)[OpClass::lm_head]);
  EXPECT_DOUBLE_EQ(model->breakdown(batch)[OpClass::sampling],
                   roofline->breakdown(batch)[OpClass::sampling]);
  EXPECT_DOUBLE_EQ(model->swap_seconds(7), roofline->swap_seconds(7));
}

TEST(ProfiledModel, AttentionAndCpuOverheadFromTables) {
  const auto model = model_of(tiny_profile(1));
  // Prefill chunk 48 on context 50: the time per chunk token, [[1/32, 2/32], [3/64, 5/64]] x
  // 1e-5, bilinear at the centre (0.0546875e-5), times 48 chunk tokens.
  const std::vector<SeqWork> prefill = {{48, 50}};
  EXPECT_DOUBLE_EQ(model->breakdown(prefill)[OpClass::attention_prefill], 6 * 2.625e-5);
  // Three decodes at mean context 200 -> batch 3 of [1, 4], context 200 of [100, 300].
  const std::vector<SeqWork> decode = {{1, 100}, {1, 200}, {1, 300}};
  const double at_batch_1 = 2e-6;
  const double at_batch_4 = 6e-6;
  EXPECT_DOUBLE_EQ(model->breakdown(decode)[OpClass::attention_decode],
                   6 * (at_batch_1 + 2.0 / 3 * (at_batch_4 - at_batch_1)));
  EXPECT_DOUBLE_EQ(model->breakdown(decode)[OpClass::cpu_overhead], 1e-3);  // below 8: clamp
  const std::vector<SeqWork> twelve(12, SeqWork{1, 100});
  EXPECT_DOUBLE_EQ(model->breakdown(twelve)[OpClass::cpu_overhead], 1.5e-3);
  EXPECT_NEAR(model->step_seconds(twelve), model->breakdown(twelve).total_seconds(), 1e-15);
}

TEST(ProfiledModel, PrefillAttentionQuadraticInTheChunkIsExactBetweenGridPoints) {
  // Measured as chunk x (context + chunk / 2) x 1 ns at the grid's corners.
  Profile p = tiny_profile(1);
  p.attention.prefill_seconds = {32 * 16e-9, 32 * 116e-9, 64 * 32e-9, 64 * 132e-9};
  const auto model = model_of(p);
  const std::vector<SeqWork> prefill = {{48, 50}};
  EXPECT_NEAR(model->breakdown(prefill)[OpClass::attention_prefill], 6 * 48 * 74e-9, 1e-18);
}

TEST(ProfiledModel, CpuOverheadCarriesItsShareOfTheOperatorTime) {
  Profile p = tiny_profile(1);
  const std::vector<SeqWork> twelve(12, SeqWork{1, 100});
  const double without_share = model_of(p)->step_seconds(twelve);
  const double operators = without_share - 1.5e-3;  // the overhead at 12 sequences
  p.cpu_overhead.share_of_operator_time = 0.25;
  const auto model = model_of(p);
  EXPECT_NEAR(model->step_seconds(twelve), operators * 1.25 + 1.5e-3, 1e-15);
  const StepBreakdown parts = model->breakdown(twelve);
  EXPECT_NEAR(parts[OpClass::cpu_overhead], 0.25 * operators + 1.5e-3, 1e-15);
  EXPECT_NEAR(parts.total_seconds(), model->step_seconds(twelve), 1e-15);
}

TEST(ProfiledModel, AllReduceOverMessageSize) {
  const auto model = model_of(tiny_profile(2), 2);
  const std::vector<SeqWork> batch = {{100, 0}};
  const double bytes = 100.0 * 288 * 2;  // 57600
  const double one = 1e-5 + (bytes - 1000) / 99000 * 2e-5;
  EXPECT_DOUBLE_EQ(model->breakdown(batch)[OpClass::allreduce], 2 * 6 * one);
}

TEST(ProfiledModel, ChecksTheDeployment) {
  try {
    model_of(tiny_profile(1), 2);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "pool.perf.profile: profile was measured at tp=1, the deployment has tp=2");
  }
  try {
    make_profiled_model(tiny_profile(1), find_model("llama-3-8b", "t"), gpu(), Deployment{}, "x");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "x: profile model tiny-llama-15m has hidden 288, llama-3-8b has 4096");
  }
  Profile missing = tiny_profile(1);
  missing.operators.erase(OpClass::mlp_act);
  try {
    model_of(missing);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "pool.perf.profile: profile has no operators.mlp_act, which tiny-llama-15m needs "
              "(give it a table or mark it {\"scope\": \"layer\", \"source\": \"roofline\"})");
  }
  Deployment fp8;
  fp8.weight_dtype = DType::fp8;
  EXPECT_THROW(make_profiled_model(tiny_profile(1), tiny(), gpu(), fp8, "x"), InputError);
  Deployment fp16;
  fp16.weight_dtype = DType::fp16;
  EXPECT_NO_THROW(make_profiled_model(tiny_profile(1), tiny(), gpu(), fp16, "x"));
}

}  // namespace
}  // namespace tidal::perf
