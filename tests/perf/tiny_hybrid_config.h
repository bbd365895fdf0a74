// A tiny hybrid of Gated DeltaNet linear attention and gated full attention (Qwen3.5's shape)
// as a Hugging Face config, shared by the suites that price or parse one.
#pragma once

#include <nlohmann/json.hpp>

namespace tidal::perf::test {

// 8 layers, every 4th full attention (layers 3 and 7): hidden 256, 4 query heads and 2 KV heads
// of 64 with an output gate; linear layers with 2 key heads and 4 value heads of 32, a 4-token
// convolution.
inline nlohmann::json tiny_hybrid_config() {
  return {{"model_type", "qwen3_5_text"},    {"hidden_size", 256},
          {"num_hidden_layers", 8},          {"num_attention_heads", 4},
          {"num_key_value_heads", 2},        {"head_dim", 64},
          {"intermediate_size", 512},        {"vocab_size", 1000},
          {"max_position_embeddings", 4096}, {"full_attention_interval", 4},
          {"attn_output_gate", true},        {"linear_num_key_heads", 2},
          {"linear_num_value_heads", 4},     {"linear_key_head_dim", 32},
          {"linear_value_head_dim", 32},     {"linear_conv_kernel_dim", 4}};
}

}  // namespace tidal::perf::test
