// Gemma, Gemma 2 and Gemma 3 (text): GQA with a gated GELU MLP and tied embeddings; Gemma 2
// alternates sliding and full layers, Gemma 3 keeps one full layer in `sliding_window_pattern`
// and normalises q and k. Defaults are those of GemmaConfig, Gemma2Config and Gemma3TextConfig.
#include <fmt/format.h>

#include "perf/hf_config_arch.h"

namespace tidal::perf {
namespace {

// Layers where `sliding(i)` holds keep a window of `sliding_window` (HF default 4096).
template <typename IsSliding>
void set_sliding_layers(HfRead& r, IsSliding sliding) {
  ModelSpec& m = r.model;
  m.layer_attention.clear();
  for (int64_t i = 0; i < m.num_layers; ++i) {
    m.layer_attention.push_back(sliding(i) ? LayerAttention::sliding : LayerAttention::full);
  }
  if (m.num_sliding_layers() == 0) {
    m.layer_attention.clear();
    return;
  }
  m.sliding_window = r.keys.count_or("sliding_window", 4096);
}

}  // namespace

void read_gemma(HfRead& r) {
  read_gqa_attention(r, AbsentKeys::required);
  r.model.intermediate = r.keys.count("intermediate_size");
  read_vocab_and_context(r);
  read_tied_embeddings(r, true);
  r.model.attention_bias = r.keys.flag_or("attention_bias", false);
  r.model.gated_mlp = true;  // GELU-gated: gate, up and down projections
}

void read_gemma2(HfRead& r) {
  read_gemma(r);
  if (read_layer_types(r)) {
    if (r.model.num_sliding_layers() > 0)
      r.model.sliding_window = r.keys.count_or("sliding_window", 4096);
  } else {
    set_sliding_layers(r, [](int64_t i) { return i % 2 == 0; });  // Gemma2Config's layer_types
  }
  r.notes.push_back(
      "the pre- and post-feedforward norms are not counted (2 x hidden_size a layer)");
}

void read_gemma3(HfRead& r) {
  read_gemma(r);
  r.model.qk_norm = true;
  if (read_layer_types(r)) {
    if (r.model.num_sliding_layers() > 0)
      r.model.sliding_window = r.keys.count_or("sliding_window", 4096);
  } else {
    const int64_t pattern = r.keys.count_or("sliding_window_pattern", 6);  // Gemma3TextConfig's
    set_sliding_layers(r, [pattern](int64_t i) { return (i + 1) % pattern != 0; });
  }
  r.notes.push_back(
      "the pre- and post-feedforward norms are not counted (2 x hidden_size a layer)");
  if (r.nested) r.notes.push_back("the vision encoder is not counted");
}

}  // namespace tidal::perf
