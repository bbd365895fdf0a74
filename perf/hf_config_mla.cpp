// Multi-head latent attention with DeepSeek's mixture of experts: deepseek_v3 (V3, R1, V3.1),
// kimi_k2, deepseek_v32 and glm_moe_dsa (MLA plus a sparse-attention indexer), and kimi_k25's
// text model. Keys as in DeepseekV3Config.
#include <fmt/format.h>

#include "perf/hf_config_arch.h"

namespace tidal::perf {
namespace {

void read_mla_dims(HfRead& r) {
  const HfKeys& k = r.keys;
  ModelSpec& m = r.model;
  m.attention = AttentionKind::mla;
  m.hidden = k.count("hidden_size");
  m.num_layers = k.count("num_hidden_layers");
  m.num_heads = k.count("num_attention_heads");
  m.num_kv_heads = m.num_heads;  // the expanded prefill: every head gets its keys and values
  if (k.find("q_lora_rank") == nullptr) k.fail("q_lora_rank", "absent (null for no compression)");
  m.mla.q_lora_rank = k.optional_count("q_lora_rank", 1).value_or(0);
  m.mla.kv_lora_rank = k.count("kv_lora_rank");
  m.mla.qk_nope_head_dim = k.count("qk_nope_head_dim");
  m.mla.qk_rope_head_dim = k.count("qk_rope_head_dim");
  m.mla.v_head_dim = k.count("v_head_dim");
  m.head_dim = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
  if (k.has("qk_head_dim") && k.count("qk_head_dim") != m.head_dim) {
    k.fail("qk_head_dim", fmt::format("{} is not qk_nope_head_dim + qk_rope_head_dim = {}",
                                      k.count("qk_head_dim"), m.head_dim));
  }
  if (k.flag_or("attention_bias", false)) r.notes.push_back("attention biases are not counted");
}

void read_deepseek_experts(HfRead& r) {
  const HfKeys& k = r.keys;
  ModelSpec& m = r.model;
  m.num_experts = k.count("n_routed_experts");
  m.num_active_experts = k.count("num_experts_per_tok");
  if (m.num_active_experts > m.num_experts) {
    k.fail("num_experts_per_tok",
           fmt::format("{} exceeds n_routed_experts {}", m.num_active_experts, m.num_experts));
  }
  if (k.find("n_shared_experts") == nullptr) k.fail("n_shared_experts", "absent (null for none)");
  m.num_shared_experts = k.optional_count("n_shared_experts", 0).value_or(0);
  m.moe_intermediate = k.count("moe_intermediate_size");  // routed and shared expert width
  // DeepseekV3DecoderLayer: layer i has the mixture when i >= first_k_dense_replace and
  // i % moe_layer_freq == 0 (moe_layer_freq 1 when absent).
  const int64_t first_moe = k.count("first_k_dense_replace", 0);
  const int64_t freq = k.count_or("moe_layer_freq", 1);
  r.moe_layer.clear();
  for (int64_t i = 0; i < m.num_layers; ++i) {
    r.moe_layer.push_back(i >= first_moe && i % freq == 0);
  }
  m.num_dense_layers = 0;
  for (bool moe : r.moe_layer) m.num_dense_layers += moe ? 0 : 1;
  m.intermediate = m.num_dense_layers > 0 ? k.count("intermediate_size")
                                          : k.count_or("intermediate_size", m.moe_intermediate);
}

}  // namespace

void read_deepseek(HfRead& r) {
  read_mla_dims(r);
  read_deepseek_experts(r);
  read_vocab_and_context(r);
  read_tied_embeddings(r, false);
  note_mtp_layers(r, "num_nextn_predict_layers");
  if (r.keys.has("index_topk")) {
    r.notes.push_back(fmt::format(
        "sparse attention (DSA): each query attends to index_topk {} tokens chosen by an "
        "indexer; tidal times attention over every cached token, and neither the indexer's "
        "weights nor its per-token key cache (index_head_dim {}) are counted",
        r.keys.count("index_topk"), r.keys.count_or("index_head_dim", 0, 0)));
  }
  if (r.nested) r.notes.push_back("the vision encoder and projector are not counted");
}

}  // namespace tidal::perf
