// The forward pass through backend memory: weights copied by DeviceWeights and a memory that is
// not host memory (so index arrays are uploaded, MoE routing read back and logits copied out)
// give exactly the bytes of the host path; PagedModel reuses its buffers across steps.
#include "models/weight_views.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/cpu/cpu_backend.h"
#include "models/memory_footprint.h"
#include "models/paged_forward.h"
#include "models/presets.h"
#include "models/quantize_weights.h"
#include "models/random_weights.h"
#include "tests/models/model_test_support.h"

namespace tidal::models {
namespace {

// Host memory that claims not to be: every transfer goes through the copy paths a device
// backend takes. Counts what moved.
class CopyingMemory final : public kernels::BackendMemory {
 public:
  bool is_host() const override { return false; }
  void* allocate(size_t bytes) override {
    ++num_allocations;
    return kernels::host_memory().allocate(bytes);
  }
  void deallocate(void* ptr) noexcept override { kernels::host_memory().deallocate(ptr); }
  void copy_from_host(void* dst, const void* src, size_t bytes) override {
    bytes_in += bytes;
    std::memcpy(dst, src, bytes);
  }
  void copy_to_host(void* dst, const void* src, size_t bytes) override {
    bytes_out += bytes;
    std::memcpy(dst, src, bytes);
  }
  void copy(void* dst, const void* src, size_t bytes) override { std::memcpy(dst, src, bytes); }
  void fill_zero(void* dst, size_t bytes) override { std::memset(dst, 0, bytes); }
  void synchronize() override {}

  int64_t num_allocations = 0;
  size_t bytes_in = 0;
  size_t bytes_out = 0;
};

// Prefill of two sequences, then three decode steps of both; the logits of every step.
std::vector<std::vector<float>> run_steps(PagedModel& model, const kernels::KvCacheView& kv,
                                          int64_t vocab) {
  testing::PagedSequences seqs(64, 4, 11);
  std::mt19937_64 rng(5);
  const int a = seqs.add_sequence();
  const int b = seqs.add_sequence();
  std::vector<std::vector<float>> steps;
  ForwardBatch prefill;
  prefill.sequences.push_back(seqs.step(a, testing::random_tokens(rng, 13, vocab)));
  prefill.sequences.push_back(seqs.step(b, testing::random_tokens(rng, 6, vocab)));
  steps.push_back(model.forward(prefill, kv));
  for (int step = 0; step < 3; ++step) {
    ForwardBatch decode;
    decode.sequences.push_back(seqs.step(a, testing::random_tokens(rng, 1, vocab)));
    decode.sequences.push_back(seqs.step(b, testing::random_tokens(rng, step == 1 ? 3 : 1, vocab)));
    if (step == 1) decode.num_logit_rows = {1, 3};  // one verification-style step
    steps.push_back(model.forward(decode, kv));
  }
  return steps;
}

void expect_same_bytes_through_copies(const ModelWeights& weights) {
  kernels::cpu::CpuBackend backend(2);
  SingleRankCommunicator comm;
  const kernels::KvCacheSpec spec = kv_cache_spec(weights, 64, 4, kernels::KvDType::bf16);

  PagedModel host_model(weights, backend, comm);
  kernels::KvArena host_arena(spec);
  const auto expected = run_steps(host_model, host_arena.view(), weights.config.vocab_size);

  CopyingMemory memory;
  const DeviceWeights device(weights, memory);
  EXPECT_EQ(memory.bytes_in, device.bytes());
  PagedModel device_model(device.views(), backend, comm, memory);
  kernels::KvArena device_arena(spec);
  const size_t weight_bytes_in = memory.bytes_in;
  const auto actual = run_steps(device_model, device_arena.view(), weights.config.vocab_size);

  ASSERT_EQ(actual.size(), expected.size());
  for (size_t s = 0; s < actual.size(); ++s) {
    ASSERT_EQ(actual[s].size(), expected[s].size()) << "step " << s;
    EXPECT_EQ(std::memcmp(actual[s].data(), expected[s].data(), actual[s].size() * sizeof(float)),
              0)
        << "step " << s;
  }
  EXPECT_GT(memory.bytes_in, weight_bytes_in);  // the steps' index arrays went in
  size_t logits_bytes = 0;
  for (const auto& logits : actual) logits_bytes += logits.size() * sizeof(float);
  EXPECT_GE(memory.bytes_out, logits_bytes);  // logits (and MoE routing) came back
  EXPECT_EQ(std::memcmp(host_arena.view().data, device_arena.view().data, spec.total_bytes()), 0);
}

TEST(DeviceWeights, DenseForwardThroughBackendMemoryIsByteIdentical) {
  expect_same_bytes_through_copies(random_weights(*find_preset("tiny"), 3));
}

TEST(DeviceWeights, TiedEmbeddingsAreCopiedOnce) {
  const ModelWeights weights = random_weights(*find_preset("tiny-llama3"), 4);
  ASSERT_TRUE(weights.config.tie_word_embeddings);
  CopyingMemory memory;
  const DeviceWeights device(weights, memory);
  EXPECT_EQ(device.views().lm_head.data, device.views().embed_tokens);
  EXPECT_EQ(device.bytes(), weights.weight_bytes());
  expect_same_bytes_through_copies(weights);
}

TEST(DeviceWeights, QuantizedForwardThroughBackendMemoryIsByteIdentical) {
  for (const QuantSpec quant :
       {QuantSpec{kernels::WeightFormat::int8, 0}, QuantSpec{kernels::WeightFormat::int8, 32},
        QuantSpec{kernels::WeightFormat::fp8_e4m3, 0}, QuantSpec{kernels::WeightFormat::bf16, 0},
        QuantSpec{kernels::WeightFormat::fp16, 0}}) {
    ModelWeights weights = random_weights(*find_preset("tiny"), 6);
    quantize_weights(weights, quant);
    SCOPED_TRACE(quant_spec_name(quant));
    expect_same_bytes_through_copies(weights);
    CopyingMemory memory;
    EXPECT_EQ(DeviceWeights(weights, memory).bytes(), weights.weight_bytes());
  }
}

TEST(DeviceWeights, MoeForwardThroughBackendMemoryIsByteIdentical) {
  expect_same_bytes_through_copies(random_weights(*find_preset("tiny-moe"), 8));
}

TEST(DeviceWeights, ViewsPointIntoTheBackendMemory) {
  const ModelWeights weights = random_weights(*find_preset("tiny"), 9);
  CopyingMemory memory;
  const DeviceWeights device(weights, memory);
  const ModelWeightViews host = host_views(weights);
  EXPECT_EQ(host.embed_tokens, weights.embed_tokens.data());
  EXPECT_NE(device.views().embed_tokens, weights.embed_tokens.data());
  EXPECT_NE(device.views().layers[0].q_proj.data, host.layers[0].q_proj.data);
  EXPECT_EQ(device.bytes(), weights.weight_bytes());
}

TEST(PagedModelMemory, BuffersAreReusedAcrossSteps) {
  const ModelWeights weights = random_weights(*find_preset("tiny"), 2);
  kernels::cpu::CpuBackend backend(1);
  SingleRankCommunicator comm;
  CopyingMemory memory;
  const DeviceWeights device(weights, memory);
  PagedModel model(device.views(), backend, comm, memory);
  kernels::KvArena arena(kv_cache_spec(weights, 64, 4, kernels::KvDType::f32));
  run_steps(model, arena.view(), weights.config.vocab_size);
  const int64_t after_first_run = memory.num_allocations;
  run_steps(model, arena.view(), weights.config.vocab_size);  // same shapes: nothing grows
  EXPECT_EQ(memory.num_allocations, after_first_run);
}

}  // namespace
}  // namespace tidal::models
