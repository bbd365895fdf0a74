#include "kernels/cpu/moe_routing.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace tidal::kernels {

namespace {

// Softmax over the selected logits, written to weights[0, top_k).
void selected_softmax(const float* logits, const int32_t* ids, int64_t top_k, float* weights) {
  const float max_logit = logits[ids[0]];
  float sum = 0.0f;
  for (int64_t j = 0; j < top_k; ++j) {
    weights[j] = std::exp(logits[ids[j]] - max_logit);
    sum += weights[j];
  }
  for (int64_t j = 0; j < top_k; ++j) weights[j] /= sum;
}

}  // namespace

namespace reference {

void moe_route(const float* router_logits, int64_t num_tokens, int64_t num_experts, int64_t top_k,
               int32_t* expert_ids, float* expert_weights) {
  std::vector<bool> taken(num_experts);  // [num_experts]
  for (int64_t t = 0; t < num_tokens; ++t) {
    const float* logits = router_logits + t * num_experts;
    std::fill(taken.begin(), taken.end(), false);
    for (int64_t j = 0; j < top_k; ++j) {  // repeated argmax over the experts not yet taken
      int64_t best = -1;
      for (int64_t e = 0; e < num_experts; ++e) {
        if (!taken[e] && (best < 0 || logits[e] > logits[best])) best = e;
      }
      taken[best] = true;
      expert_ids[t * top_k + j] = static_cast<int32_t>(best);
    }
    selected_softmax(logits, expert_ids + t * top_k, top_k, expert_weights + t * top_k);
  }
}

}  // namespace reference

namespace cpu {

void moe_route(ThreadPool& pool, const float* router_logits, int64_t num_tokens,
               int64_t num_experts, int64_t top_k, int32_t* expert_ids, float* expert_weights) {
  pool.parallel_for(num_tokens, 32, [&](int64_t begin, int64_t end) {
    std::vector<int32_t> order(num_experts);  // [num_experts]
    for (int64_t t = begin; t < end; ++t) {
      const float* logits = router_logits + t * num_experts;
      std::iota(order.begin(), order.end(), 0);
      std::partial_sort(order.begin(), order.begin() + top_k, order.end(),
                        [logits](int32_t a, int32_t b) {
                          return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
                        });
      std::copy(order.begin(), order.begin() + top_k, expert_ids + t * top_k);
      selected_softmax(logits, expert_ids + t * top_k, top_k, expert_weights + t * top_k);
    }
  });
}

}  // namespace cpu

}  // namespace tidal::kernels
