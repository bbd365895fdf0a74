// Mixtures of experts with GQA attention: Mixtral, Qwen3-MoE, gpt-oss, Llama 4 and MiniMax-M2.
// Defaults taken when a key is absent are those of the Hugging Face config classes (listed in
// docs/models.md).
#include <fmt/format.h>

#include "perf/hf_config_arch.h"

namespace tidal::perf {
namespace {

// Routed experts and the experts a token uses; `experts_key` names the count in errors.
void read_experts(HfRead& r, const char* experts_key, int64_t active) {
  ModelSpec& m = r.model;
  m.num_experts = r.keys.count(experts_key);
  m.num_active_experts = active;
  if (active > m.num_experts) {
    r.keys.fail("num_experts_per_tok",
                fmt::format("{} exceeds {} {}", active, experts_key, m.num_experts));
  }
}

// Which layers carry the mixture (`moe_layer`), and num_dense_layers from it.
void set_moe_layers(HfRead& r, std::vector<bool> moe_layer) {
  int64_t dense = 0;
  for (bool moe : moe_layer) dense += moe ? 0 : 1;
  r.model.num_dense_layers = dense;
  r.moe_layer = std::move(moe_layer);
}

std::vector<bool> every_layer(const HfRead& r) {
  return std::vector<bool>(static_cast<std::size_t>(r.model.num_layers), true);
}

// A list of layer indices (mlp_only_layers, moe_layers) as a per-layer mask.
std::vector<bool> layer_mask(const HfRead& r, const char* key) {
  std::vector<bool> mask(static_cast<std::size_t>(r.model.num_layers), false);
  const std::vector<int64_t> layers = r.keys.counts(key, 0);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (layers[i] >= r.model.num_layers) {
      r.keys.fail(
          fmt::format("{}[{}]", key, i),
          fmt::format("layer {} is beyond num_hidden_layers {}", layers[i], r.model.num_layers));
    }
    mask[static_cast<std::size_t>(layers[i])] = true;
  }
  return mask;
}

// The dense MLP width: required when some layer is dense, else the expert width stands in.
void read_dense_width(HfRead& r, const char* key) {
  ModelSpec& m = r.model;
  m.intermediate =
      m.num_dense_layers > 0 ? r.keys.count(key) : r.keys.count_or(key, m.moe_intermediate);
}

}  // namespace

void read_mixtral(HfRead& r) {
  read_gqa_attention(r, AbsentKeys::derive);
  read_experts(r, "num_local_experts", r.keys.count("num_experts_per_tok"));
  r.model.moe_intermediate = r.keys.count("intermediate_size");  // one expert's width
  r.model.intermediate = r.model.moe_intermediate;
  set_moe_layers(r, every_layer(r));
  read_vocab_and_context(r);
  read_tied_embeddings(r, false);
  if (r.keys.has("sliding_window")) set_all_sliding(r, r.keys.count("sliding_window"));
}

void read_qwen3_moe(HfRead& r) {
  read_gqa_attention(r, AbsentKeys::required);
  ModelSpec& m = r.model;
  m.qk_norm = true;
  m.attention_bias = r.keys.flag_or("attention_bias", false);
  read_qwen3_moe_mlp(r);
  read_vocab_and_context(r);
  read_tied_embeddings(r, false);
  read_qwen_sliding(r);
  if (r.nested) r.notes.push_back("the vision encoder is not counted");
}

void read_qwen3_moe_mlp(HfRead& r) {
  ModelSpec& m = r.model;
  read_experts(r, "num_experts", r.keys.count("num_experts_per_tok"));
  m.moe_intermediate = r.keys.count("moe_intermediate_size");
  // Qwen3MoeSparseMoeBlock sits on layer i unless i is in mlp_only_layers or (i + 1) is not a
  // multiple of decoder_sparse_step (defaults [] and 1).
  const int64_t step = r.keys.count_or("decoder_sparse_step", 1);
  std::vector<bool> moe = every_layer(r);
  const std::vector<bool> mlp_only = r.keys.has("mlp_only_layers")
                                         ? layer_mask(r, "mlp_only_layers")
                                         : std::vector<bool>(moe.size());
  for (std::size_t i = 0; i < moe.size(); ++i) {
    moe[i] = !mlp_only[i] && (static_cast<int64_t>(i) + 1) % step == 0;
  }
  set_moe_layers(r, std::move(moe));
  read_dense_width(r, "intermediate_size");
}

void read_gpt_oss(HfRead& r) {
  read_gqa_attention(r, AbsentKeys::required);
  ModelSpec& m = r.model;
  m.attention_bias = r.keys.flag_or("attention_bias", true);  // GptOssConfig's default
  const char* active_key =
      r.keys.has("num_experts_per_tok") ? "num_experts_per_tok" : "experts_per_token";
  const int64_t active = r.keys.count(active_key);
  if (r.keys.has("experts_per_token") && r.keys.count("experts_per_token") != active) {
    r.keys.fail("experts_per_token", fmt::format("{} disagrees with num_experts_per_tok {}",
                                                 r.keys.count("experts_per_token"), active));
  }
  read_experts(r, "num_local_experts", active);
  m.moe_intermediate = r.keys.count("intermediate_size");
  m.intermediate = m.moe_intermediate;
  set_moe_layers(r, every_layer(r));
  if (!read_layer_types(r)) {  // GptOssConfig: sliding on even layers, full on odd ones
    m.layer_attention.clear();
    for (int64_t i = 0; i < m.num_layers; ++i) {
      m.layer_attention.push_back(i % 2 == 0 ? LayerAttention::sliding : LayerAttention::full);
    }
  }
  if (m.num_sliding_layers() > 0) m.sliding_window = r.keys.count_or("sliding_window", 128);
  read_vocab_and_context(r);
  read_tied_embeddings(r, false);
  r.notes.push_back("expert biases and attention sinks are not counted (under 0.1% of weights)");
}

void read_llama4(HfRead& r) {
  read_gqa_attention(r, AbsentKeys::required);
  ModelSpec& m = r.model;
  m.attention_bias = r.keys.flag_or("attention_bias", false);
  read_experts(r, "num_local_experts", r.keys.count("num_experts_per_tok"));
  m.moe_intermediate = r.keys.count("intermediate_size");  // routed and shared expert width
  m.num_shared_experts = 1;                                // Llama4TextMoe's shared_expert
  // Llama4TextConfig: moe_layers, else every interleave_moe_layer_step-th layer (default 1).
  std::vector<bool> moe(static_cast<std::size_t>(m.num_layers), false);
  if (r.keys.has("moe_layers")) {
    moe = layer_mask(r, "moe_layers");
  } else {
    const int64_t step = r.keys.count_or("interleave_moe_layer_step", 1);
    for (int64_t i = step - 1; i < m.num_layers; i += step) moe[static_cast<std::size_t>(i)] = true;
  }
  set_moe_layers(r, std::move(moe));
  read_dense_width(r, "intermediate_size_mlp");
  read_vocab_and_context(r);
  read_tied_embeddings(r, false);
  // Layers with RoPE attend within chunks of attention_chunk_size; the NoPE ones (no_rope_layers
  // 0, by default every no_rope_layer_interval-th = 4th layer) attend globally.
  if (!read_layer_types(r)) {
    std::vector<int64_t> uses_rope;
    if (r.keys.has("no_rope_layers")) {
      uses_rope = r.keys.counts("no_rope_layers", 0);
      if (static_cast<int64_t>(uses_rope.size()) != m.num_layers) {
        r.keys.fail("no_rope_layers", fmt::format("{} entries for num_hidden_layers {}",
                                                  uses_rope.size(), m.num_layers));
      }
    } else {
      const int64_t interval = r.keys.count_or("no_rope_layer_interval", 4);
      for (int64_t i = 0; i < m.num_layers; ++i) uses_rope.push_back((i + 1) % interval != 0);
    }
    for (int64_t rope : uses_rope) {
      m.layer_attention.push_back(rope != 0 ? LayerAttention::sliding : LayerAttention::full);
    }
    if (m.num_sliding_layers() == 0) m.layer_attention.clear();
  }
  if (m.num_sliding_layers() > 0) {
    m.sliding_window = r.keys.count_or("attention_chunk_size", 8192);  // Llama4TextConfig's
    r.notes.push_back(fmt::format(
        "chunked local attention on the {} RoPE layers is modelled as a sliding window of "
        "attention_chunk_size {} (a chunk's tokens see at most that many: an upper bound on KV "
        "and attention time); the {} NoPE layers attend to every token",
        m.num_sliding_layers(), m.sliding_window, m.num_full_layers()));
  }
  if (r.keys.flag_or("use_qk_norm", false)) {
    r.notes.push_back("the q/k L2 norms (use_qk_norm) have no weights");
  }
  if (r.nested) r.notes.push_back("the vision encoder and projector are not counted");
}

void read_minimax_m2(HfRead& r) {
  read_gqa_attention(r, AbsentKeys::required);
  ModelSpec& m = r.model;
  read_experts(r, "num_local_experts", r.keys.count("num_experts_per_tok"));
  m.moe_intermediate = r.keys.count("intermediate_size");  // one expert's width
  m.intermediate = m.moe_intermediate;
  set_moe_layers(r, every_layer(r));
  read_vocab_and_context(r);
  read_tied_embeddings(r, false);
  m.qk_norm = r.keys.flag_or("use_qk_norm", false);
  if (r.keys.has("attn_type_list")) {
    const std::vector<int64_t> kinds = r.keys.counts("attn_type_list", 0);
    for (std::size_t i = 0; i < kinds.size(); ++i) {
      if (kinds[i] != 1) {
        r.keys.fail(fmt::format("attn_type_list[{}]", i),
                    fmt::format("{}: only full softmax attention (1) is supported", kinds[i]));
      }
    }
  }
  if (r.keys.count_or("shared_intermediate_size", 0, 0) > 0) {
    r.keys.fail("shared_intermediate_size", "shared experts in minimax_m2 are not supported");
  }
  if (r.keys.has("sliding_window")) {
    r.keys.fail("sliding_window", "a sliding window in minimax_m2 is not supported");
  }
  if (r.keys.flag_or("use_mtp", false)) {
    r.notes.push_back(fmt::format(
        "{} multi-token-prediction modules (num_mtp_modules) are not part of the served model: "
        "not counted",
        r.keys.count_or("num_mtp_modules", 0, 0)));
  }
  if (m.qk_norm) {
    r.notes.push_back(
        "q/k norms span the whole projection (qk_norm_type per_layer) but are "
        "counted per head");
  }
}

}  // namespace tidal::perf
