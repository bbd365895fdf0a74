// Hybrids of Gated DeltaNet linear attention and gated full attention: Qwen3-Next and Qwen3.5
// (dense and MoE). Keys and their meaning follow Hugging Face transformers' Qwen3NextConfig and
// Qwen3_5TextConfig / Qwen3_5MoeTextConfig; tidal takes none of their defaults for the widths.
#include <fmt/format.h>

#include "perf/hf_config_arch.h"

namespace tidal::perf {
namespace {

// layer_types ("linear_attention" / "full_attention"), or when absent the config classes' rule:
// every full_attention_interval-th layer (default 4) is full attention, the others linear.
void read_hybrid_layers(HfRead& r) {
  ModelSpec& m = r.model;
  m.layer_attention.clear();
  if (r.keys.has("layer_types")) {
    const std::vector<std::string> types = r.keys.strings("layer_types");
    if (static_cast<int64_t>(types.size()) != m.num_layers) {
      r.keys.fail("layer_types",
                  fmt::format("{} entries for num_hidden_layers {}", types.size(), m.num_layers));
    }
    for (std::size_t i = 0; i < types.size(); ++i) {
      if (types[i] == "linear_attention") {
        m.layer_attention.push_back(LayerAttention::linear);
      } else if (types[i] == "full_attention") {
        m.layer_attention.push_back(LayerAttention::full);
      } else {
        r.keys.fail(fmt::format("layer_types[{}]", i),
                    fmt::format("\"{}\" layers are not supported in {} (tidal understands "
                                "linear_attention and full_attention)",
                                types[i], r.model_type));
      }
    }
    return;
  }
  const int64_t interval = r.keys.count_or("full_attention_interval", 4);
  for (int64_t i = 0; i < m.num_layers; ++i) {
    m.layer_attention.push_back((i + 1) % interval == 0 ? LayerAttention::full
                                                        : LayerAttention::linear);
  }
}

// The recurrent state's dtype: mamba_ssm_dtype as torch names it, float32 when absent (what
// SGLang 0.5 and vLLM's Qwen3-Next configs use).
DType read_state_dtype(const HfRead& r) {
  const std::optional<std::string> name = r.keys.optional_text("mamba_ssm_dtype");
  if (!name || *name == "float32") return DType::fp32;
  if (*name == "bfloat16") return DType::bf16;
  if (*name == "float16") return DType::fp16;
  r.keys.fail(
      "mamba_ssm_dtype",
      fmt::format("\"{}\" is not a state dtype tidal knows (float32, bfloat16, float16)", *name));
}

// What the dense and MoE variants share: gated GQA full attention with q/k norms, the Gated
// DeltaNet widths, the layer pattern, vocabulary and context.
void read_hybrid_attention(HfRead& r) {
  read_gqa_attention(r, AbsentKeys::required);
  ModelSpec& m = r.model;
  m.qk_norm = true;
  m.attention_bias = r.keys.flag_or("attention_bias", false);
  // Qwen3-Next's attention always gates its output; Qwen3.5 says so with attn_output_gate.
  m.attention_output_gate = r.keys.flag_or("attn_output_gate", true);
  LinearAttentionDims& l = m.linear;
  l.num_key_heads = r.keys.count("linear_num_key_heads");
  l.num_value_heads = r.keys.count("linear_num_value_heads");
  l.key_head_dim = r.keys.count("linear_key_head_dim");
  l.value_head_dim = r.keys.count("linear_value_head_dim");
  l.conv_kernel = r.keys.count("linear_conv_kernel_dim");
  l.state_dtype = read_state_dtype(r);
  read_hybrid_layers(r);
  read_vocab_and_context(r);
  read_tied_embeddings(r, false);
  note_mtp_layers(r, "mtp_num_hidden_layers");
  if (r.nested) r.notes.push_back("the vision encoder is not counted");
}

}  // namespace

void read_qwen3_5(HfRead& r) {
  read_hybrid_attention(r);
  r.model.intermediate = r.keys.count("intermediate_size");
}

void read_qwen3_5_moe(HfRead& r) {
  read_hybrid_attention(r);
  read_qwen3_moe_mlp(r);
  // One always-on shared expert per MoE layer (its sigmoid gate, a [hidden, 1] projection, is
  // not counted).
  ModelSpec& m = r.model;
  const int64_t shared = r.keys.count_or("shared_expert_intermediate_size", 0, 0);
  if (shared > 0) {
    m.num_shared_experts = 1;
    m.shared_expert_intermediate = shared;
  }
}

}  // namespace tidal::perf
