// MoE layers: the batched expert dispatch of the paged forward (gather tokens per expert, one
// GEMM per expert, weighted scatter-add) against the reference forward's naive per-token loop
// over its top-k experts, for several expert counts and top-k (including top-1 and all
// experts); logits within 1e-4 relative.
#include <gtest/gtest.h>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/moe_routing.h"
#include "models/memory_footprint.h"
#include "models/paged_forward.h"
#include "models/random_weights.h"
#include "models/reference_forward.h"
#include "tests/models/model_test_support.h"

namespace tidal::models {
namespace {

ModelConfig moe_config(int64_t num_experts, int64_t top_k) {
  ModelConfig c;
  c.vocab_size = 128;
  c.hidden_size = 48;
  c.intermediate_size = 40;
  c.num_layers = 2;
  c.num_heads = 4;
  c.num_kv_heads = 1;
  c.head_dim = 12;
  c.max_position_embeddings = 256;
  c.num_local_experts = num_experts;
  c.num_experts_per_tok = top_k;
  return c;
}

TEST(Moe, BatchedDispatchMatchesNaiveLoop) {
  for (auto [num_experts, top_k] : {std::pair<int64_t, int64_t>{4, 1}, {4, 2}, {8, 2}, {3, 3}}) {
    const ModelWeights weights = random_weights(moe_config(num_experts, top_k), 51 + num_experts);
    std::mt19937_64 rng(num_experts * 10 + top_k);
    const std::vector<int32_t> prompt = testing::random_tokens(rng, 40, 128);
    ReferenceForward reference(weights);
    const std::vector<float> expected = reference.run(prompt);

    kernels::cpu::CpuBackend backend(2);
    SingleRankCommunicator comm;
    PagedModel model(weights, backend, comm);
    kernels::KvArena arena(kv_cache_spec(weights, 16, 4, kernels::KvDType::f32));
    testing::PagedSequences seqs(16, 4, 3);
    ForwardBatch batch;
    batch.sequences.push_back(seqs.step(seqs.add_sequence(), prompt));
    batch.num_logit_rows = all_logit_rows(batch);
    EXPECT_LT(testing::relative_error(model.forward(batch, arena.view()), expected), 1e-4)
        << num_experts << " experts, top " << top_k;
  }
}

TEST(Moe, RandomRouterUsesEveryExpert) {
  // With random weights the router spreads 40 tokens over all experts, so the batched dispatch
  // above ran every expert's GEMM on a real subset of tokens.
  const ModelWeights weights = random_weights(moe_config(8, 2), 59);
  std::mt19937_64 rng(1);
  std::vector<float> hidden(40 * 48);  // [tokens, hidden] random activations in [-1, 1)
  for (float& v : hidden)
    v = static_cast<float>(static_cast<double>(rng() >> 11) * 0x1.0p-52 - 1.0);
  std::vector<float> logits(40 * 8);  // [tokens, experts]
  kernels::reference::linear(hidden.data(), 40,
                             kernels::LinearView{kernels::WeightFormat::f32, 8, 48, 48,
                                                 weights.layers[0].router.data(), nullptr},
                             logits.data());
  std::vector<int32_t> ids(40 * 2);
  std::vector<float> expert_weights(40 * 2);
  kernels::reference::moe_route(logits.data(), 40, 8, 2, ids.data(), expert_weights.data());
  std::vector<int> counts(8);
  for (int32_t id : ids) ++counts[id];
  for (int e = 0; e < 8; ++e) EXPECT_GT(counts[e], 0) << "expert " << e;
}

}  // namespace
}  // namespace tidal::models
