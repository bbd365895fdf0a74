// Inside the Hugging Face config reader: the state one architecture reader fills, and the
// readers themselves (hf_config_gqa.cpp, hf_config_moe.cpp, hf_config_mla.cpp). hf_config.cpp
// picks one by model_type; hf_quant.cpp reads the checkpoint's quantization afterwards.
#pragma once

#include <string>
#include <vector>

#include "perf/hf_config_keys.h"
#include "perf/model_spec.h"

namespace tidal::perf {

struct HfRead {
  HfKeys root;             // the whole config.json
  HfKeys keys;             // the text model's keys: root, or root's text_config
  bool nested = false;     // keys is text_config
  std::string model_type;  // root's model_type
  ModelSpec model;
  std::vector<bool> moe_layer;     // [num_layers] true where a mixture of experts replaces the MLP
  std::vector<std::string> notes;  // approximations, joined into ModelSpec::notes
};

// --- shared pieces (hf_config_gqa.cpp) ---

// What an absent num_key_value_heads or head_dim means.
enum class AbsentKeys {
  derive,    // multi-head, and hidden_size / num_attention_heads (LlamaConfig and its kin)
  required,  // an error: tidal does not take a config class's fixed defaults (Gemma, gpt-oss, ...)
};

// hidden_size, num_hidden_layers, num_attention_heads, num_key_value_heads, head_dim.
void read_gqa_attention(HfRead& r, AbsentKeys absent);
// vocab_size and max_position_embeddings.
void read_vocab_and_context(HfRead& r);
// tie_word_embeddings (text_config's, else the root's), or `hf_default` when absent.
void read_tied_embeddings(HfRead& r, bool hf_default);
// layer_types ("full_attention" / "sliding_attention") when present; returns whether it was.
bool read_layer_types(HfRead& r);
// Every layer sliding with `window`.
void set_all_sliding(HfRead& r, int64_t window);
// Qwen2-style: use_sliding_window turns layers >= max_window_layers into sliding ones.
void read_qwen_sliding(HfRead& r);
// Notes a multi-token-prediction module that the served model does not run.
void note_mtp_layers(HfRead& r, const char* key);

// --- dense GQA models (hf_config_gqa.cpp, hf_config_gemma.cpp) ---
void read_llama(HfRead& r);
void read_mistral(HfRead& r);
void read_qwen2(HfRead& r);
void read_qwen3(HfRead& r);
void read_qwen1(HfRead& r);
void read_internlm(HfRead& r);
void read_phi(HfRead& r);
void read_gemma(HfRead& r);
void read_gemma2(HfRead& r);
void read_gemma3(HfRead& r);

// --- mixtures of experts with GQA (hf_config_moe.cpp) ---
void read_mixtral(HfRead& r);
void read_qwen3_moe(HfRead& r);
void read_gpt_oss(HfRead& r);
void read_llama4(HfRead& r);
void read_minimax_m2(HfRead& r);
// Qwen3-MoE's experts: num_experts, num_experts_per_tok, moe_intermediate_size, which layers
// carry them (decoder_sparse_step, mlp_only_layers) and the dense layers' intermediate_size.
void read_qwen3_moe_mlp(HfRead& r);

// --- hybrids of Gated DeltaNet linear attention and gated full attention (hf_config_linear.cpp)
void read_qwen3_5(HfRead& r);      // qwen3_5 (dense MLP)
void read_qwen3_5_moe(HfRead& r);  // qwen3_5_moe, qwen3_next (experts plus one shared expert)

// --- multi-head latent attention (hf_config_mla.cpp) ---
void read_deepseek(HfRead& r);

}  // namespace tidal::perf
