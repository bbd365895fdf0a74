// Mixtral-style top-k routing: per token, the top_k largest router logits (ties to the lower
// expert id) in descending order, weighted by a softmax over those top_k logits.
#pragma once

#include <cstdint>

#include "kernels/thread_pool.h"

namespace tidal::kernels::reference {
void moe_route(const float* router_logits,  // [num_tokens, num_experts]
               int64_t num_tokens, int64_t num_experts, int64_t top_k,
               int32_t* expert_ids,     // [num_tokens, top_k]
               float* expert_weights);  // [num_tokens, top_k]
}  // namespace tidal::kernels::reference

namespace tidal::kernels::cpu {
void moe_route(ThreadPool& pool, const float* router_logits, int64_t num_tokens,
               int64_t num_experts, int64_t top_k, int32_t* expert_ids, float* expert_weights);
}  // namespace tidal::kernels::cpu
