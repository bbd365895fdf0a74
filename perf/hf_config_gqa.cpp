// Dense decoder models with grouped-query (or multi-head) attention: Llama, Mistral, Qwen2/MiMo,
// Qwen3, first-generation QWen, InternLM, Phi; and the pieces every GQA reader shares. Defaults
// taken when a key is absent are those of the model's Hugging Face config class (listed in
// docs/models.md).
#include <fmt/format.h>

#include "perf/hf_config_arch.h"

namespace tidal::perf {

void read_gqa_attention(HfRead& r, AbsentKeys absent) {
  const HfKeys& k = r.keys;
  ModelSpec& m = r.model;
  m.hidden = k.count("hidden_size");
  m.num_layers = k.count("num_hidden_layers");
  m.num_heads = k.count("num_attention_heads");
  m.num_kv_heads = absent == AbsentKeys::derive ? k.count_or("num_key_value_heads", m.num_heads)
                                                : k.count("num_key_value_heads");
  if (m.num_heads % m.num_kv_heads != 0) {
    k.fail("num_key_value_heads",
           fmt::format("{} does not divide num_attention_heads {}", m.num_kv_heads, m.num_heads));
  }
  if (k.has("head_dim")) {
    m.head_dim = k.count("head_dim");
  } else if (absent == AbsentKeys::required) {
    k.fail("head_dim",
           fmt::format("absent ({} configs give it; tidal assumes no default)", r.model_type));
  } else if (m.hidden % m.num_heads != 0) {
    k.fail("head_dim", fmt::format("absent and not derivable: hidden_size {} is not a multiple of "
                                   "num_attention_heads {}",
                                   m.hidden, m.num_heads));
  } else {
    m.head_dim = m.hidden / m.num_heads;
  }
}

void read_vocab_and_context(HfRead& r) {
  r.model.vocab = r.keys.count("vocab_size");
  r.model.max_position = r.keys.count("max_position_embeddings");
}

void read_tied_embeddings(HfRead& r, bool hf_default) {
  const char* key = "tie_word_embeddings";
  const bool in_text = r.keys.has(key);
  bool tied = r.keys.flag_or(key, hf_default);
  if (r.nested && r.root.has(key)) {
    const bool root_tied = r.root.flag_or(key, hf_default);
    if (in_text && root_tied != tied) {
      r.root.fail(key, fmt::format("{} disagrees with {} {}", root_tied, r.keys.path(key), tied));
    }
    tied = root_tied;
  }
  r.model.tied_embeddings = tied;
}

bool read_layer_types(HfRead& r) {
  if (!r.keys.has("layer_types")) return false;
  const std::vector<std::string> types = r.keys.strings("layer_types");
  if (static_cast<int64_t>(types.size()) != r.model.num_layers) {
    r.keys.fail("layer_types", fmt::format("{} entries for num_hidden_layers {}", types.size(),
                                           r.model.num_layers));
  }
  std::vector<LayerAttention> kinds;  // [num_layers]
  bool any_sliding = false;
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (types[i] == "full_attention") {
      kinds.push_back(LayerAttention::full);
    } else if (types[i] == "sliding_attention" || types[i] == "chunked_attention") {
      kinds.push_back(LayerAttention::sliding);
      any_sliding = true;
    } else {
      r.keys.fail(fmt::format("layer_types[{}]", i),
                  fmt::format("\"{}\" layers are not supported (tidal understands "
                              "full_attention, sliding_attention and chunked_attention)",
                              types[i]));
    }
  }
  if (any_sliding) r.model.layer_attention = std::move(kinds);
  return true;
}

void set_all_sliding(HfRead& r, int64_t window) {
  r.model.layer_attention.assign(static_cast<std::size_t>(r.model.num_layers),
                                 LayerAttention::sliding);
  r.model.sliding_window = window;
}

void read_qwen_sliding(HfRead& r) {
  ModelSpec& m = r.model;
  if (read_layer_types(r)) {
    if (m.num_sliding_layers() > 0) m.sliding_window = r.keys.count("sliding_window");
    return;
  }
  if (!r.keys.flag_or("use_sliding_window", false)) return;
  const int64_t window = r.keys.count("sliding_window");
  const int64_t first_sliding = r.keys.count_or("max_window_layers", 28, 0);  // Qwen2Config's
  if (first_sliding >= m.num_layers) return;
  m.layer_attention.assign(static_cast<std::size_t>(m.num_layers), LayerAttention::full);
  for (int64_t i = first_sliding; i < m.num_layers; ++i) {
    m.layer_attention[static_cast<std::size_t>(i)] = LayerAttention::sliding;
  }
  m.sliding_window = window;
}

void note_mtp_layers(HfRead& r, const char* key) {
  const int64_t layers = r.keys.count_or(key, 0, 0);
  if (layers == 0) return;
  r.notes.push_back(fmt::format(
      "{} multi-token-prediction layer(s) ({}) are not part of the served model: not counted",
      layers, key));
}

namespace {

// The Llama layout every reader here starts from.
void read_llama_like(HfRead& r, AbsentKeys absent) {
  read_gqa_attention(r, absent);
  r.model.intermediate = r.keys.count("intermediate_size");
  read_vocab_and_context(r);
  read_tied_embeddings(r, false);
  if (r.keys.flag_or("mlp_bias", false)) r.notes.push_back("MLP biases (mlp_bias) not counted");
}

}  // namespace

void read_llama(HfRead& r) {
  read_llama_like(r, AbsentKeys::derive);
  r.model.attention_bias = r.keys.flag_or("attention_bias", false);
}

void read_mistral(HfRead& r) {
  read_llama_like(r, AbsentKeys::derive);
  const nlohmann::json* window = r.keys.find("sliding_window");
  if (window == nullptr) {
    set_all_sliding(r, 4096);  // MistralConfig's default
    r.notes.push_back("sliding_window absent: MistralConfig's default of 4096 on every layer");
  } else if (!window->is_null()) {
    set_all_sliding(r, r.keys.count("sliding_window"));
  }
}

void read_qwen2(HfRead& r) {
  read_llama_like(r, AbsentKeys::derive);
  r.model.attention_bias = true;  // Qwen2's q, k and v projections always carry biases
  r.notes.push_back(
      "q/k/v biases counted, with an o_proj bias Qwen2 lacks (hidden_size per layer)");
  read_qwen_sliding(r);
  note_mtp_layers(r, "num_nextn_predict_layers");  // MiMo
}

void read_qwen3(HfRead& r) {
  read_llama_like(r, AbsentKeys::required);
  r.model.qk_norm = true;
  r.model.attention_bias = r.keys.flag_or("attention_bias", false);
  read_qwen_sliding(r);
  if (r.nested) r.notes.push_back("the vision encoder is not counted");
}

void read_qwen1(HfRead& r) {
  const HfKeys& k = r.keys;
  ModelSpec& m = r.model;
  m.hidden = k.count("hidden_size");
  m.num_layers = k.count("num_hidden_layers");
  m.num_heads = k.count("num_attention_heads");
  m.num_kv_heads = m.num_heads;  // multi-head attention
  if (k.has("kv_channels")) {
    m.head_dim = k.count("kv_channels");
  } else if (m.hidden % m.num_heads == 0) {
    m.head_dim = m.hidden / m.num_heads;
  } else {
    k.fail("kv_channels", "absent and hidden_size is not a multiple of num_attention_heads");
  }
  const int64_t both = k.count("intermediate_size");
  if (both % 2 != 0) {
    k.fail("intermediate_size", fmt::format("{} is odd; QWen splits it between w1 and w2", both));
  }
  m.intermediate = both / 2;
  m.vocab = k.count("vocab_size");
  m.max_position =
      k.has("max_position_embeddings") ? k.count("max_position_embeddings") : k.count("seq_length");
  read_tied_embeddings(r, false);
  m.attention_bias = true;  // c_attn carries a bias
  r.notes.push_back("intermediate_size counts w1 and w2 together: each projection is half of it");
}

void read_internlm(HfRead& r) {
  read_llama_like(r, AbsentKeys::derive);
  r.model.attention_bias = r.keys.flag_or("bias", true);  // InternLMConfig's default
}

void read_phi(HfRead& r) {
  read_llama_like(r, AbsentKeys::derive);
  r.model.gated_mlp = false;
  r.model.attention_bias = true;
  r.model.qk_norm = r.keys.flag_or("qk_layernorm", false);
  r.notes.push_back(
      "GELU MLP without a gate; the parallel attention/MLP block, partial rotary embedding, "
      "LayerNorm and MLP biases are not modelled");
}

}  // namespace tidal::perf
