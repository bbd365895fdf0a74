// Weight quantization at load time through the whole forward pass. Documented tolerances
// (random-weight presets, 3 sequences x 48 positions, logits of every position):
//   quantized paged forward vs the reference forward on the same quantized weights: 1e-4
//   relative error = max |diff| / max |fp32 logit| over all positions; agreement = share of
//   positions with the same greedy token. Measured (seeded) values in brackets.
//                      dense (tiny, tiny-llama3)             MoE (tiny-moe)
//   int8, int8:gN      error < 0.02 [<= 0.0092],            error < 0.10 [<= 0.064],
//                      agreement >= 0.95 [>= 0.986]         agreement >= 0.95 [0.986]
//   fp8 e4m3           error < 0.10 [<= 0.056],             error < 0.35 [0.25],
//                      agreement >= 0.85 [>= 0.896]         agreement >= 0.85 [0.931]
//   MoE errors are larger because a quantization error can flip a token's top-k expert set.
#include <gtest/gtest.h>

#include "base/input_error.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/sampling.h"
#include "models/memory_footprint.h"
#include "models/paged_forward.h"
#include "models/presets.h"
#include "models/quantize_weights.h"
#include "models/random_weights.h"
#include "models/reference_forward.h"
#include "tests/models/model_test_support.h"

namespace tidal::models {
namespace {

constexpr int kNumSequences = 3;
constexpr int kNumPositions = 48;

struct Bounds {
  const char* spec;
  double max_relative_error;
  double min_argmax_agreement;
};

std::vector<Bounds> bounds_for(bool moe) {
  const double int8_error = moe ? 0.10 : 0.02;
  const double fp8_error = moe ? 0.35 : 0.10;
  return {{"int8", int8_error, 0.95},
          {"int8:g32", int8_error, 0.95},
          {"int8:g64", int8_error, 0.95},
          {"fp8", fp8_error, 0.85}};
}

// Logits at every position of kNumSequences random prompts: [3 * 48, vocab]
std::vector<float> all_logits(const ModelWeights& weights) {
  kernels::cpu::CpuBackend backend(2);
  SingleRankCommunicator comm;
  PagedModel model(weights, backend, comm);
  kernels::KvArena arena(kv_cache_spec(weights, 64, 8, kernels::KvDType::f32));
  testing::PagedSequences seqs(64, 8, 1);
  std::mt19937_64 rng(99);
  ForwardBatch batch;
  for (int s = 0; s < kNumSequences; ++s) {
    batch.sequences.push_back(
        seqs.step(seqs.add_sequence(),
                  testing::random_tokens(rng, kNumPositions, weights.config.vocab_size)));
  }
  batch.num_logit_rows = all_logit_rows(batch);
  return model.forward(batch, arena.view());
}

double argmax_agreement(const std::vector<float>& a, const std::vector<float>& b, int64_t vocab) {
  const int64_t num_rows = static_cast<int64_t>(a.size()) / vocab;
  int64_t same = 0;
  for (int64_t r = 0; r < num_rows; ++r) {
    same += kernels::argmax(a.data() + r * vocab, vocab) ==
            kernels::argmax(b.data() + r * vocab, vocab);
  }
  return static_cast<double>(same) / static_cast<double>(num_rows);
}

class QuantizedForwardTest : public ::testing::TestWithParam<std::string> {};

TEST_P(QuantizedForwardTest, LogitsStayCloseToFp32) {
  const ModelWeights full = random_weights(*find_preset(GetParam()), 31);
  const std::vector<float> expected = all_logits(full);
  const int64_t vocab = full.config.vocab_size;
  for (const Bounds& bounds : bounds_for(full.config.is_moe())) {
    ModelWeights quantized = full;
    quantize_weights(quantized, parse_quant_spec(bounds.spec, "test"));
    const std::vector<float> logits = all_logits(quantized);
    const double error = testing::relative_error(logits, expected);
    const double agreement = argmax_agreement(logits, expected, vocab);
    EXPECT_LT(error, bounds.max_relative_error) << bounds.spec;
    EXPECT_GE(agreement, bounds.min_argmax_agreement) << bounds.spec;
    RecordProperty(std::string(bounds.spec) + "_relative_error", std::to_string(error));
    RecordProperty(std::string(bounds.spec) + "_argmax_agreement", std::to_string(agreement));
  }
}

// bf16 / fp16 weights: the CPU widens them in registers, so the forward pass equals bit for bit
// the fp32 forward on the rounded weights; bf16 stays within 1e-2 of fp32 (8 mantissa bits).
TEST_P(QuantizedForwardTest, HalfWeightsEqualTheFp32ForwardOnRoundedWeights) {
  const ModelWeights full = random_weights(*find_preset(GetParam()), 33);
  const std::vector<float> expected = all_logits(full);
  for (const std::string dtype : {"bf16", "fp16"}) {
    ModelWeights half = full;
    quantize_weights(half, apply_weight_dtype(QuantSpec{}, dtype, "test"));
    ModelWeights rounded = half;
    visit_linears(rounded, [](const std::string&, kernels::LinearWeight& w) {
      w = kernels::make_f32_linear(kernels::dequantize(w.view()), w.rows, w.cols);
    });
    const std::vector<float> logits = all_logits(half);
    EXPECT_EQ(logits, all_logits(rounded)) << dtype;
    EXPECT_LT(testing::relative_error(logits, expected), 1e-2) << dtype;
  }
}

TEST(WeightDtype, AppliesToUnquantizedWeightsOnly) {
  EXPECT_EQ(apply_weight_dtype(QuantSpec{}, "bf16", "--weight-dtype").format,
            kernels::WeightFormat::bf16);
  EXPECT_EQ(apply_weight_dtype(QuantSpec{}, "fp16", "--weight-dtype").format,
            kernels::WeightFormat::fp16);
  const QuantSpec int8 = parse_quant_spec("int8:g32", "--quant");
  EXPECT_EQ(apply_weight_dtype(int8, "f32", "--weight-dtype").group_size, 32);
  EXPECT_EQ(quant_spec_name(apply_weight_dtype(QuantSpec{}, "bf16", "--weight-dtype")), "bf16");
  try {
    apply_weight_dtype(int8, "bf16", "--weight-dtype");
    FAIL() << "accepted bf16 with int8";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--weight-dtype: bf16 weights cannot be combined with --quant int8:g32 (quantized "
              "codes replace the weights); drop one of them");
  }
  try {
    apply_weight_dtype(QuantSpec{}, "half", "--weight-dtype");
    FAIL() << "accepted 'half'";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--weight-dtype: unknown weight dtype 'half' (expected f32, bf16 or fp16)");
  }
}

TEST_P(QuantizedForwardTest, PagedMatchesReferenceOnQuantizedWeights) {
  ModelWeights weights = random_weights(*find_preset(GetParam()), 32);
  quantize_weights(weights, parse_quant_spec("int8:g32", "test"));
  std::mt19937_64 rng(5);
  const std::vector<int32_t> prompt = testing::random_tokens(rng, 12, weights.config.vocab_size);
  ReferenceForward reference(weights);
  const std::vector<float> expected = reference.run(prompt);
  kernels::cpu::CpuBackend backend(2);
  SingleRankCommunicator comm;
  PagedModel model(weights, backend, comm);
  kernels::KvArena arena(kv_cache_spec(weights, 16, 4, kernels::KvDType::f32));
  testing::PagedSequences seqs(16, 4, 2);
  ForwardBatch batch;
  batch.sequences.push_back(seqs.step(seqs.add_sequence(), prompt));
  batch.num_logit_rows = all_logit_rows(batch);
  EXPECT_LT(testing::relative_error(model.forward(batch, arena.view()), expected), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Presets, QuantizedForwardTest, testing::preset_params(),
                         testing::preset_test_name);

TEST(QuantizeWeights, FormatsLayersAndErrors) {
  ModelWeights weights = random_weights(*find_preset("tiny-llama3"), 33);
  ASSERT_FALSE(weights.lm_head.has_value());  // tied
  quantize_weights(weights, parse_quant_spec("fp8", "test"));
  ASSERT_TRUE(weights.lm_head.has_value());  // its own quantized copy of the embeddings
  EXPECT_EQ(weights.lm_head->format, kernels::WeightFormat::fp8_e4m3);
  EXPECT_EQ(weights.layers[0].q_proj.format, kernels::WeightFormat::fp8_e4m3);
  EXPECT_EQ(weights.embed_tokens.size(), 512u * 64);  // embeddings stay fp32
  EXPECT_TRUE(weights.layers[0].q_proj.values.empty());

  ModelWeights tiny = random_weights(*find_preset("tiny"), 34);
  try {
    quantize_weights(tiny, parse_quant_spec("int8:g128", "--quant"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "quantization int8:g128: group size 128 does not divide the input width 64 of "
              "model.layers.0.self_attn.q_proj.weight");
  }
  EXPECT_THROW(parse_quant_spec("int4", "--quant"), InputError);
  EXPECT_EQ(quant_spec_name(parse_quant_spec("int8:g64", "x")), "int8:g64");
  EXPECT_EQ(quant_spec_name(parse_quant_spec("none", "x")), "none");
}

}  // namespace
}  // namespace tidal::models
