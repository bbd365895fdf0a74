// The oracle: a plain forward pass in the style of llama2.c, one token at a time, contiguous
// fp32 KV cache, no threads, no paging. Every other path is tested against it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/model_weights.h"

namespace tidal::models {

class ReferenceForward {
 public:
  // Full (unsharded) weights in any WeightFormat; they must outlive this object.
  explicit ReferenceForward(const ModelWeights& weights);

  // Feeds `token` at position num_tokens(); returns the logits after it: [vocab].
  std::vector<float> step(int32_t token);
  // step() for each token in turn; returns [tokens.size(), vocab].
  std::vector<float> run(std::span<const int32_t> tokens);
  int64_t num_tokens() const { return num_tokens_; }

 private:
  const ModelWeights& w_;
  int64_t num_tokens_ = 0;
  std::vector<float> inv_freq_;                  // [head_dim / 2]
  std::vector<std::vector<float>> key_cache_;    // [num_layers][num_tokens, num_kv_heads, head_dim]
  std::vector<std::vector<float>> value_cache_;  // [num_layers][num_tokens, num_kv_heads, head_dim]
};

}  // namespace tidal::models
