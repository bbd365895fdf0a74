// What tidal knows of a decoder-only transformer: the dimensions that set its memory and its
// time, whichever way it was described (a catalog entry, a Hugging Face config.json, an inline
// scenario object).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "perf/dtype.h"

namespace tidal::perf {

// How a layer's attention keeps keys and values.
enum class AttentionKind {
  gqa,  // multi-head / grouped-query: num_kv_heads keys and values of head_dim per token
  mla,  // multi-head latent (DeepSeek-V2/V3): one compressed latent of kv_lora_rank plus a
        // shared rotary key of qk_rope_head_dim per token, for all heads
};

// Which tokens a layer attends to.
enum class LayerAttention {
  full,     // every earlier token of the sequence
  sliding,  // at most `sliding_window` of the latest tokens (sliding windows, and chunked local
            // attention such as Llama 4's, whose span never exceeds the chunk)
  linear,   // no softmax attention and no KV cache: a Gated DeltaNet linear-attention layer
            // (Qwen3-Next, Qwen3.5) carrying a fixed-size recurrent state per sequence
};

// A Gated DeltaNet layer's widths (HF qwen3_next / qwen3_5 keys linear_num_key_heads,
// linear_num_value_heads, linear_key_head_dim, linear_value_head_dim, linear_conv_kernel_dim).
// Queries and keys have num_key_heads heads, values num_value_heads; each value head keeps a
// key_head_dim x value_head_dim state, and a causal depthwise convolution over the last
// conv_kernel tokens runs on the concatenated q, k and v.
struct LinearAttentionDims {
  int64_t num_key_heads = 0;
  int64_t num_value_heads = 0;
  int64_t key_head_dim = 0;
  int64_t value_head_dim = 0;
  int64_t conv_kernel = 0;
  DType state_dtype = DType::fp32;  // the recurrent state's (HF mamba_ssm_dtype)

  int64_t key_width() const { return num_key_heads * key_head_dim; }
  int64_t value_width() const { return num_value_heads * value_head_dim; }
  // Channels the convolution runs over: q, k and v.
  int64_t conv_width() const { return 2 * key_width() + value_width(); }
};

// Multi-head latent attention's widths (HF deepseek_v3 keys of the same names).
struct MlaDims {
  int64_t q_lora_rank = 0;  // 0: queries projected from hidden directly (no compression)
  int64_t kv_lora_rank = 0;
  int64_t qk_nope_head_dim = 0;
  int64_t qk_rope_head_dim = 0;
  int64_t v_head_dim = 0;
};

// The checkpoint's own quantization (HF `quantization_config` or `hf_quant_config.json`).
// `dtype` is the format of the quantized linear weights; the parts marked false stay in the
// unquantized dtype (the checkpoint's `modules_to_not_convert` / `ignore` / `exclude_modules`).
// Embeddings, the LM head, norms and MoE routers are never quantized.
struct CheckpointQuant {
  std::string method;  // "" when unquantized; "fp8", "mxfp4", "nvfp4", "awq", "gptq", ...
  DType dtype = DType::bf16;
  double scale_bytes_per_weight = 0.0;     // block or group scales stored beside each weight
  bool attention = true;                   // attention projections quantized
  bool dense_mlp = true;                   // dense MLPs quantized
  bool experts = true;                     // routed experts quantized
  bool shared_experts = true;              // shared experts quantized
  std::vector<std::string> not_converted;  // module patterns as the checkpoint lists them
};

// A decoder-only transformer with RMSNorm, rotary embeddings, GQA or MLA attention and a (gated)
// MLP or a mixture of experts. MoE layers replace the dense MLP with num_experts routed experts
// of width moe_intermediate (num_active_experts chosen per token) plus num_shared_experts
// always-on experts of width shared_expert_intermediate; num_dense_layers layers (DeepSeek's
// leading `first_k_dense_replace`, or Llama 4's non-interleaved layers) keep a dense MLP of
// width intermediate.
struct ModelSpec {
  std::string name;                  // catalog name, or the config's name (e.g. its file stem)
  std::vector<std::string> aliases;  // e.g. "meta-llama/Meta-Llama-3-8B", "Meta-Llama-3-8B"
  std::string architecture;          // HF model_type, e.g. "llama", "deepseek_v3"
  int64_t num_layers = 0;
  int64_t hidden = 0;
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;  // GQA; for MLA equal to num_heads (the expanded prefill)
  int64_t head_dim = 0;      // GQA; for MLA qk_nope_head_dim + qk_rope_head_dim
  int64_t intermediate = 0;  // dense MLP width
  int64_t vocab = 0;
  bool gated_mlp = true;        // SwiGLU (gate and up projections) vs a single up projection
  bool qk_norm = false;         // RMSNorm on q and k per head (Qwen3)
  bool attention_bias = false;  // biases on the q/k/v (and o) projections
  AttentionKind attention = AttentionKind::gqa;
  MlaDims mla;                                  // when attention == mla
  std::vector<LayerAttention> layer_attention;  // [num_layers]; empty = every layer full
  int64_t sliding_window = 0;                   // tokens a sliding layer keeps; 0 = none
  LinearAttentionDims linear;                   // when some layer is linear
  // The query projection also yields a per-head sigmoid gate on the attention output (HF
  // attn_output_gate: Qwen3-Next and Qwen3.5 full-attention layers), doubling its width.
  bool attention_output_gate = false;
  int64_t num_experts = 0;  // routed experts per MoE layer; 0 = dense model
  int64_t num_active_experts = 0;
  int64_t num_shared_experts = 0;
  int64_t moe_intermediate = 0;            // width of one routed expert
  int64_t shared_expert_intermediate = 0;  // width of one shared expert (0 = moe_intermediate)
  int64_t num_dense_layers = 0;            // layers with a dense MLP in an MoE model
  bool tied_embeddings = false;
  int64_t max_position = 0;
  CheckpointQuant quant;
  std::string source;  // where the figures come from (HF config.json, paper)
  std::string notes;   // approximations made

  bool is_moe() const { return num_experts > 0; }
  bool is_mla() const { return attention == AttentionKind::mla; }
  int64_t num_moe_layers() const { return is_moe() ? num_layers - num_dense_layers : 0; }
  int64_t num_sliding_layers() const;
  int64_t num_linear_layers() const;
  // Layers with softmax attention over a KV cache (full or sliding).
  int64_t num_attention_layers() const { return num_layers - num_linear_layers(); }
  int64_t num_full_layers() const { return num_attention_layers() - num_sliding_layers(); }
  int64_t shared_expert_width() const;  // shared_expert_intermediate, or moe_intermediate

  // KV-cache values one token keeps in one layer, whole model (before any TP split): GQA
  // 2 * num_kv_heads * head_dim, MLA kv_lora_rank + qk_rope_head_dim.
  int64_t kv_values_per_token_per_layer() const;

  // Per-layer weight counts (parameters, not bytes).
  double attention_params_per_layer() const;  // q, k, v, o projections (MLA: its five)
  // A Gated DeltaNet layer's projections (qkv, z, b, a in, out), convolution and per-head decay.
  double linear_attention_params_per_layer() const;
  // Every layer's attention or linear-attention parameters.
  double mixer_params() const;
  double dense_mlp_params() const;      // one dense MLP
  double expert_params() const;         // one routed expert
  double shared_expert_params() const;  // one shared expert
  double router_params() const;         // one MoE layer's router
  double embedding_params() const;      // input embedding + LM head (once if tied)
  double norm_params() const;           // every RMSNorm of the model
  // Every parameter (drives memory) vs those one token touches. Publishers differ on whether the
  // input embedding counts as active (Mistral and Qwen count it; OpenAI's gpt-oss card does
  // not): active_params() counts it, active_params_without_embedding() does not.
  double total_params() const;
  double active_params() const;
  double active_params_without_embedding() const;
};

// Checks the cross-field rules every ModelSpec must meet (heads divide, MoE fields consistent,
// layer_attention sized num_layers, a sliding model has a window, MLA widths set); InputError
// "<where>: <what>" naming the offending field.
void check_model_spec(const ModelSpec& model, const std::string& where);

}  // namespace tidal::perf
