// The model catalog: transformer dimensions of known models, compiled in from
// catalog/models.json.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tidal::perf {

// A decoder-only transformer with RMSNorm, rotary embeddings, GQA attention and a (gated) MLP or
// a mixture of experts. MoE layers replace the dense MLP with num_experts routed experts of width
// moe_intermediate (num_active_experts chosen per token) plus num_shared_experts always-on
// experts of the same width; the first num_dense_layers layers keep the dense MLP of width
// intermediate.
struct ModelSpec {
  std::string name;                  // catalog name, e.g. "llama-3-8b"
  std::vector<std::string> aliases;  // e.g. "meta-llama/Meta-Llama-3-8B", "Meta-Llama-3-8B"
  int64_t num_layers = 0;
  int64_t hidden = 0;
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;
  int64_t head_dim = 0;
  int64_t intermediate = 0;  // dense MLP width
  int64_t vocab = 0;
  bool gated_mlp = true;    // SwiGLU (gate and up projections) vs a single up projection
  int64_t num_experts = 0;  // routed experts per MoE layer; 0 = dense model
  int64_t num_active_experts = 0;
  int64_t num_shared_experts = 0;
  int64_t moe_intermediate = 0;  // width of one expert
  int64_t num_dense_layers = 0;  // leading layers with a dense MLP in an MoE model
  bool tied_embeddings = false;
  int64_t max_position = 0;
  std::string source;  // where the figures come from (HF config.json, paper)
  std::string notes;   // approximations made, e.g. MLA modelled as GQA

  bool is_moe() const { return num_experts > 0; }
  int64_t num_moe_layers() const { return is_moe() ? num_layers - num_dense_layers : 0; }
  // Per-layer weight counts (parameters, not bytes).
  double attention_params_per_layer() const;  // q, k, v, o projections
  double dense_mlp_params() const;            // one dense MLP
  double expert_params() const;               // one expert
  double embedding_params() const;            // input embedding + LM head (once if tied)
  // Every parameter (drives memory) vs those one token touches (drives compute).
  double total_params() const;
  double active_params() const;
};

// Looks a model up by name or alias, case-insensitively. Unknown names are an InputError
// "<json_path>: unknown model "x"; known models: llama-3-8b, ...".
const ModelSpec& find_model(std::string_view name, const std::string& json_path);

// Catalog names in catalog order.
std::vector<std::string> model_names();

}  // namespace tidal::perf
