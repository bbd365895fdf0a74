// Mixtral routing: top-k experts in descending order, ties to the lower id, weights a softmax
// over the selected logits; optimized equals reference.
#include <cmath>

#include <gtest/gtest.h>

#include "kernels/cpu/moe_routing.h"
#include "tests/kernels/test_random.h"

namespace tidal::kernels {
namespace {

TEST(MoeRoute, PicksTopKWithSoftmaxOverSelected) {
  const std::vector<float> logits = {0.5f, 2.0f, -1.0f, 2.0f, 1.0f};  // tie between 1 and 3
  std::vector<int32_t> ids(3);
  std::vector<float> weights(3);
  reference::moe_route(logits.data(), 1, 5, 3, ids.data(), weights.data());
  EXPECT_EQ(ids, (std::vector<int32_t>{1, 3, 4}));
  const double denominator = 2 * std::exp(2.0) + std::exp(1.0);
  EXPECT_NEAR(weights[0], std::exp(2.0) / denominator, 1e-6);
  EXPECT_NEAR(weights[2], std::exp(1.0) / denominator, 1e-6);
}

TEST(MoeRoute, OptimizedEqualsReference) {
  std::mt19937_64 rng(51);
  ThreadPool pool(3);
  for (int trial = 0; trial < 10; ++trial) {
    const int64_t num_tokens = testing::uniform_int(rng, 1, 100);
    const int64_t num_experts = testing::uniform_int(rng, 1, 16);
    const int64_t top_k = testing::uniform_int(rng, 1, num_experts);
    std::vector<float> logits = testing::random_values(rng, num_tokens * num_experts, 3.0f);
    logits[0] = logits[num_experts - 1];  // a tie
    std::vector<int32_t> ids_ref(num_tokens * top_k), ids(num_tokens * top_k);
    std::vector<float> weights_ref(num_tokens * top_k), weights(num_tokens * top_k);
    reference::moe_route(logits.data(), num_tokens, num_experts, top_k, ids_ref.data(),
                         weights_ref.data());
    cpu::moe_route(pool, logits.data(), num_tokens, num_experts, top_k, ids.data(), weights.data());
    EXPECT_EQ(ids, ids_ref);
    EXPECT_EQ(weights, weights_ref);
  }
}

}  // namespace
}  // namespace tidal::kernels
