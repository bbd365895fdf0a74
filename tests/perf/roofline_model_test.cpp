// The roofline step-time model against hand-computed bounds.
#include <gtest/gtest.h>

#include <vector>

#include "base/input_error.h"
#include "perf/roofline_costs.h"
#include "perf/roofline_model.h"

namespace tidal::perf {
namespace {

const ModelSpec& llama8b() {
  return find_model("llama-3-8b", "t");
}
const GpuSpec& h100() {
  return find_gpu("H100-SXM", "t");
}

Deployment with_tp(int32_t tp) {
  Deployment d;
  d.tp = tp;
  return d;
}

std::vector<SeqWork> decode_batch(int64_t num_seqs, int64_t context) {
  return std::vector<SeqWork>(static_cast<std::size_t>(num_seqs), SeqWork{1, context});
}

TEST(Roofline, DecodeBatchOneIsBoundByWeightStreaming) {
  const auto model = make_roofline_model(llama8b(), h100(), Deployment{});
  const auto batch = decode_batch(1, 1000);
  const double weight_bytes =
      plan_memory(llama8b(), h100(), Deployment{}, "p").weight_bytes_per_gpu;
  const double floor_s = weight_bytes / h100().hbm_bandwidth_Bps;  // 4.79 ms
  const double step = model->step_seconds(batch);
  EXPECT_GE(step, floor_s);
  EXPECT_LE(step, 1.6 * floor_s);
  EXPECT_NEAR(model->breakdown(batch).total_seconds(), step, 1e-12);
}

TEST(Roofline, LogitRowsChargeTheLmHeadAndSamplingPerRow) {
  const auto model = make_roofline_model(llama8b(), h100(), Deployment{});
  const RooflineCosts costs(llama8b(), h100(), Deployment{}, RooflineOptions{});
  // A sequence verifying 3 drafts computes 4 rows of logits; a prefill chunk short of its
  // prompt's end computes none. Tokens, sequences and attention are the same in each batch.
  const std::vector<SeqWork> one_row = {{4, 700, 1}, {64, 0, 1}};
  const std::vector<SeqWork> verifying = {{4, 700, 4}, {64, 0, 1}};
  const std::vector<SeqWork> mid_prompt = {{4, 700, 1}, {64, 0, 0}};
  auto rows_seconds = [&](int64_t rows) {
    return costs.seq_seconds(OpClass::lm_head, rows) + costs.seq_seconds(OpClass::sampling, rows);
  };
  EXPECT_NEAR(model->step_seconds(verifying) - model->step_seconds(one_row),
              rows_seconds(5) - rows_seconds(2), 1e-12);
  EXPECT_NEAR(model->step_seconds(one_row) - model->step_seconds(mid_prompt),
              rows_seconds(2) - rows_seconds(1), 1e-12);
  const StepBreakdown b = model->breakdown(verifying);
  EXPECT_DOUBLE_EQ(b[OpClass::lm_head], costs.seq_seconds(OpClass::lm_head, 5));
  EXPECT_DOUBLE_EQ(b[OpClass::cpu_overhead], costs.seq_seconds(OpClass::cpu_overhead, 2));
  EXPECT_NEAR(b.total_seconds(), model->step_seconds(verifying), 1e-12);
}

TEST(Roofline, LongPrefillIsComputeBound) {
  const auto model = make_roofline_model(llama8b(), h100(), Deployment{});
  const std::vector<SeqWork> batch = {{2048, 0}};
  const double floor_s = 2.0 * llama8b().active_params() * 2048 / h100().flops_bf16;  // 33 ms
  EXPECT_GE(model->step_seconds(batch), floor_s);
  const RooflineCosts costs(llama8b(), h100(), Deployment{}, RooflineOptions{});
  for (OpClass op : {OpClass::qkv_proj, OpClass::o_proj, OpClass::mlp_up_gate, OpClass::mlp_down}) {
    const OpWork work = costs.layer_work(op, 2048);
    EXPECT_GT(work.flops / h100().flops_bf16, work.bytes / h100().hbm_bandwidth_Bps)
        << op_class_name(op);
  }
  // And at batch 1 the same projections are memory bound.
  const OpWork one = costs.layer_work(OpClass::mlp_up_gate, 1);
  EXPECT_LT(one.flops / h100().flops_bf16, one.bytes / h100().hbm_bandwidth_Bps);
}

TEST(Roofline, HandComputedGemm) {
  // mlp_up_gate at 2048 tokens: [2048, 4096] x [4096, 2 * 14336].
  const RooflineCosts costs(llama8b(), h100(), Deployment{}, RooflineOptions{});
  const OpWork work = costs.layer_work(OpClass::mlp_up_gate, 2048);
  EXPECT_DOUBLE_EQ(work.flops, 2.0 * 2048 * 4096 * 28672);
  EXPECT_DOUBLE_EQ(work.bytes, 4096.0 * 28672 * 2 + 2048.0 * (4096 + 28672) * 2);
  const double expected = 32 * work.flops / (989e12 * 0.70);
  EXPECT_DOUBLE_EQ(costs.token_seconds(OpClass::mlp_up_gate, 2048), expected);
}

TEST(Roofline, Fp8WeightsDecodeFasterThanBf16) {
  Deployment fp8;
  fp8.weight_dtype = DType::fp8;
  const auto bf16_model = make_roofline_model(llama8b(), h100(), Deployment{});
  const auto fp8_model = make_roofline_model(llama8b(), h100(), fp8);
  for (int64_t num_seqs : {1, 16, 64}) {
    const auto batch = decode_batch(num_seqs, 1000);
    EXPECT_LT(fp8_model->step_seconds(batch), bf16_model->step_seconds(batch)) << num_seqs;
  }
  // Prefill: fp8 tensor cores on H100 double the GEMM rate.
  const std::vector<SeqWork> prefill = {{4096, 0}};
  EXPECT_LT(fp8_model->breakdown(prefill)[OpClass::mlp_up_gate],
            0.55 * bf16_model->breakdown(prefill)[OpClass::mlp_up_gate]);
}

TEST(Roofline, QuantizedComputeFallsBackWhereTheChipLacksIt) {
  const GpuSpec& a100 = find_gpu("A100-80GB", "t");
  Deployment fp8;
  fp8.weight_dtype = DType::fp8;
  Deployment int4;
  int4.weight_dtype = DType::int4;
  Deployment int8;
  int8.weight_dtype = DType::int8;
  EXPECT_EQ(RooflineCosts(llama8b(), a100, fp8, {}).gemm_peak_flops(), a100.flops_bf16);
  EXPECT_EQ(RooflineCosts(llama8b(), a100, int4, {}).gemm_peak_flops(), a100.flops_bf16);
  EXPECT_EQ(RooflineCosts(llama8b(), a100, int8, {}).gemm_peak_flops(), a100.flops_int8);
  EXPECT_EQ(RooflineCosts(llama8b(), h100(), fp8, {}).gemm_peak_flops(), h100().flops_fp8);
  // int4 weight-only still decodes faster (fewer bytes) but prefills no faster than bf16.
  const auto bf16_model = make_roofline_model(llama8b(), a100, Deployment{});
  const auto int4_model = make_roofline_model(llama8b(), a100, int4);
  EXPECT_LT(int4_model->step_seconds(decode_batch(1, 500)),
            bf16_model->step_seconds(decode_batch(1, 500)));
  const std::vector<SeqWork> prefill = {{4096, 0}};
  EXPECT_DOUBLE_EQ(int4_model->breakdown(prefill)[OpClass::mlp_down],
                   bf16_model->breakdown(prefill)[OpClass::mlp_down]);
}

TEST(Roofline, KvDtypeChangesDecodeAttentionBytes) {
  Deployment fp8_kv;
  fp8_kv.kv_dtype = DType::fp8;
  const auto bf16_model = make_roofline_model(llama8b(), h100(), Deployment{});
  const auto fp8_model = make_roofline_model(llama8b(), h100(), fp8_kv);
  const auto batch = decode_batch(64, 4000);
  const double bf16_attention = bf16_model->breakdown(batch)[OpClass::attention_decode];
  const double fp8_attention = fp8_model->breakdown(batch)[OpClass::attention_decode];
  EXPECT_LT(fp8_attention, 0.55 * bf16_attention);
  EXPECT_GT(fp8_attention, 0.45 * bf16_attention);
}

TEST(Roofline, TensorParallelismSplitsWorkAndAddsAllReduce) {
  const auto tp1 = make_roofline_model(llama8b(), h100(), with_tp(1));
  const auto tp2 = make_roofline_model(llama8b(), h100(), with_tp(2));
  const auto batch = decode_batch(1, 1000);
  const StepBreakdown b1 = tp1->breakdown(batch);
  const StepBreakdown b2 = tp2->breakdown(batch);
  EXPECT_EQ(b1[OpClass::allreduce], 0.0);
  EXPECT_GT(b2[OpClass::allreduce], 0.0);
  // 64 all-reduces of [1, 4096] bf16: latency dominated.
  const RooflineOptions defaults;
  const double one = defaults.allreduce_latency_s +
                     2.0 * 1 / 2 * 4096 * 2 / (450e9 * defaults.allreduce_bandwidth_efficiency);
  EXPECT_NEAR(b2[OpClass::allreduce], 64 * one, 1e-15);
  // Weights halve; the [1, hidden] activations do not, hence the small tolerance.
  EXPECT_NEAR(b2[OpClass::mlp_down] * 2 / b1[OpClass::mlp_down], 1.0, 1e-3);
  EXPECT_NEAR(b2[OpClass::qkv_proj] * 2 / b1[OpClass::qkv_proj], 1.0, 1e-3);
  EXPECT_LT(tp2->step_seconds(batch), tp1->step_seconds(batch));
}

TEST(Roofline, MixtralComputeUsesActiveExperts) {
  const ModelSpec& mixtral = find_model("mixtral-8x7b", "t");
  const RooflineCosts costs(mixtral, h100(), with_tp(2), RooflineOptions{});
  const OpWork prefill = costs.layer_work(OpClass::moe_experts, 2048);
  EXPECT_DOUBLE_EQ(prefill.flops, 2.0 * 2048 * 2 * mixtral.expert_params() / 2);
  // Batch 1 reads the 2 chosen experts' weights; a big batch reads all 8.
  const OpWork one = costs.layer_work(OpClass::moe_experts, 1);
  EXPECT_NEAR(one.bytes, 2 * mixtral.expert_params() / 2 * 2.0, 1e6);
  EXPECT_NEAR(prefill.bytes, 8 * mixtral.expert_params() / 2 * 2.0,
              1e8 + 2048 * 2.0 * 2 * (2 * 4096 + 3 * 7168) * 2);
  // Dense MLP classes do not run in an all-MoE model.
  const auto model = make_roofline_model(mixtral, h100(), with_tp(2));
  EXPECT_EQ(model->breakdown(decode_batch(4, 100))[OpClass::mlp_up_gate], 0.0);
  EXPECT_GT(model->breakdown(decode_batch(4, 100))[OpClass::moe_experts], 0.0);
}

TEST(Roofline, StepSecondsMatchesBreakdownBeyondThePrecomputedRange) {
  RooflineOptions small;
  small.max_precomputed_tokens = 8;
  small.max_precomputed_seqs = 2;
  const auto tabulated = make_roofline_model(llama8b(), h100(), Deployment{});
  const auto direct = make_roofline_model(llama8b(), h100(), Deployment{}, small);
  const std::vector<SeqWork> batch = {{300, 0}, {1, 40}, {1, 900}, {17, 5000}};
  EXPECT_NEAR(tabulated->step_seconds(batch), direct->step_seconds(batch), 1e-12);
  EXPECT_NEAR(direct->breakdown(batch).total_seconds(), direct->step_seconds(batch), 1e-12);
  EXPECT_EQ(direct->step_seconds({}), 0.0);
}

TEST(Roofline, CpuOverheadIsExplicitAndConfigurable) {
  RooflineOptions options;
  options.cpu_overhead_base_s = 2e-3;
  options.cpu_overhead_per_seq_s = 10e-6;
  const auto model = make_roofline_model(llama8b(), h100(), Deployment{}, options);
  EXPECT_DOUBLE_EQ(model->breakdown(decode_batch(10, 10))[OpClass::cpu_overhead], 2.1e-3);
}

TEST(Roofline, SwapMovesBlocksOverPcie) {
  const auto model = make_roofline_model(llama8b(), h100(), Deployment{});
  // 100 blocks x 16 tokens x 128 KiB over 64 GB/s at 80%.
  EXPECT_DOUBLE_EQ(model->swap_seconds(100), 100.0 * 16 * 131072 / (64e9 * 0.8));
  EXPECT_EQ(model->swap_seconds(0), 0.0);
}

TEST(Roofline, RejectsBadOptionsAndTp) {
  RooflineOptions bad;
  bad.gemm_compute_efficiency = 0;
  EXPECT_THROW(make_roofline_model(llama8b(), h100(), Deployment{}, bad), InputError);
  EXPECT_THROW(make_roofline_model(llama8b(), h100(), with_tp(3)), InputError);
}

TEST(Roofline, EveryCatalogModelRunsOnEveryGpu) {
  for (const std::string& model_name : model_names()) {
    for (const std::string& gpu_name : gpu_names()) {
      const auto model =
          make_roofline_model(find_model(model_name, "t"), find_gpu(gpu_name, "t"), Deployment{});
      const std::vector<SeqWork> batch = {{128, 0}, {1, 64}};
      const double step = model->step_seconds(batch);
      EXPECT_GT(step, 0.0) << model_name << " on " << gpu_name;
      EXPECT_LT(step, 100.0) << model_name << " on " << gpu_name;
    }
  }
}

}  // namespace
}  // namespace tidal::perf
